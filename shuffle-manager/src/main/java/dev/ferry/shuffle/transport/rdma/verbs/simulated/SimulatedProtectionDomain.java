package dev.ferry.shuffle.transport.rdma.verbs.simulated;

import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import dev.ferry.shuffle.transport.rdma.verbs.Access;
import dev.ferry.shuffle.transport.rdma.verbs.CompletionStatus;
import dev.ferry.shuffle.transport.rdma.verbs.MemoryRegion;
import dev.ferry.shuffle.transport.rdma.verbs.ProtectionDomain;
import dev.ferry.shuffle.transport.rdma.verbs.RegistrableMemory;
import dev.ferry.shuffle.transport.rdma.verbs.Registration;
import dev.ferry.shuffle.transport.rdma.verbs.RegistrationChunks;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsException;

import static java.util.Objects.requireNonNull;

/**
 * The simulated NIC's region table for one device. It enforces what the HCA enforces:
 * <ul>
 * <li>random 32-bit keys, lkey different from rkey, valid only until deregistration;</li>
 * <li>remote READs only by a known rkey, inside the region, with REMOTE_READ access
 *     ({@code REM_ACCESS_ERR} otherwise);</li>
 * <li>local scatter entries only by a known lkey, inside the region, writable
 *     ({@code LOC_PROT_ERR} otherwise);</li>
 * <li>device memory only with peer memory support, within the GPU's BAR1 budget.</li>
 * </ul>
 * Addresses are synthetic I/O virtual addresses, unique within the domain, as an
 * {@code ibv_reg_mr} with an iova would give. Thread-safe.
 */
final class SimulatedProtectionDomain
        implements ProtectionDomain
{
    private static final long PAGE = 4096;

    private final String deviceName;
    private final SimulatedNicOptions options;
    private final int maxRegionBytes;
    private final SecureRandom random = new SecureRandom();
    private final Map<Integer, SimulatedRegion> byRkey = new ConcurrentHashMap<>();
    private final Map<Integer, SimulatedRegion> byLkey = new ConcurrentHashMap<>();
    private final Map<Integer, Long> bar1Used = new HashMap<>();
    private final AtomicLong regionRegistrations = new AtomicLong();
    private long nextAddress;

    SimulatedProtectionDomain(String deviceName, SimulatedNicOptions options, int maxRegionBytes)
    {
        this.deviceName = requireNonNull(deviceName, "deviceName is null");
        this.options = requireNonNull(options, "options is null");
        this.maxRegionBytes = maxRegionBytes;
        // A random, page-aligned start so addresses from two domains rarely coincide, as virtual addresses of two processes do not.
        this.nextAddress = (0x10000L + random.nextInt(1 << 20)) * PAGE;
    }

    @Override
    public Registration register(RegistrableMemory memory, Set<Access> access)
            throws VerbsException
    {
        requireNonNull(memory, "memory is null");
        Access.checkCombination(access);
        if (memory.view().isEmpty()) {
            throw new VerbsException("The simulated NIC " + deviceName + " cannot address " + memory + ": register host buffers or simulated device memory");
        }
        if (memory.isDevice()) {
            reserveBar1(memory);
        }
        ByteBuffer view = memory.view().orElseThrow();
        List<MemoryRegion> regions = new ArrayList<>();
        synchronized (this) {
            for (RegistrationChunks.Chunk chunk : RegistrationChunks.split(memory.length(), maxRegionBytes)) {
                long address = nextAddress;
                nextAddress += (chunk.length() + PAGE - 1) / PAGE * PAGE + PAGE; // a guard page between regions
                int lkey = freshKey();
                int rkey;
                do {
                    rkey = freshKey();
                }
                while (rkey == lkey);
                MemoryRegion region = new MemoryRegion(address, chunk.length(), lkey, rkey, access, chunk.offset());
                ByteBuffer bytes = view.slice(Math.toIntExact(chunk.offset()), chunk.length());
                SimulatedRegion entry = new SimulatedRegion(region, bytes, memory.device());
                regionRegistrations.incrementAndGet();
                byLkey.put(lkey, entry);
                byRkey.put(rkey, entry);
                regions.add(region);
            }
        }
        return new Registration(memory, regions, this::deregister);
    }

    private synchronized void reserveBar1(RegistrableMemory memory)
            throws VerbsException
    {
        if (!options.peermemLoaded()) {
            throw new VerbsException("ibv_reg_mr failed for " + memory + " on " + deviceName
                    + ": Bad address (GPU memory needs the nvidia_peermem module, which is not loaded)");
        }
        long used = bar1Used.getOrDefault(memory.device(), 0L);
        if (memory.length() > options.bar1BytesPerDevice() - used) {
            throw new VerbsException("ibv_reg_mr failed for " + memory + " on " + deviceName + ": Cannot allocate memory (BAR1 of GPU " + memory.device()
                    + " has " + (options.bar1BytesPerDevice() - used) + " of " + options.bar1BytesPerDevice() + " bytes left)");
        }
        bar1Used.put(memory.device(), used + memory.length());
    }

    private synchronized void deregister(List<MemoryRegion> regions)
    {
        for (MemoryRegion region : regions) {
            SimulatedRegion remote = byRkey.remove(region.rkey());
            SimulatedRegion entry = byLkey.remove(region.lkey());
            if (entry == null) {
                entry = remote;
            }
            if (entry != null && entry.device() != RegistrableMemory.HOST) {
                bar1Used.merge(entry.device(), -(long) region.length(), Long::sum);
            }
        }
    }

    private int freshKey()
    {
        int key;
        do {
            key = random.nextInt();
        }
        while (key == 0 || byLkey.containsKey(key) || byRkey.containsKey(key));
        return key;
    }

    /**
     * Test fault: invalidates {@code rkey} for remote access, as if its owner had just deregistered
     * the region; the owner's own later deregistration still releases it (and its BAR1 share).
     */
    synchronized void revoke(int rkey)
    {
        byRkey.remove(rkey);
    }

    /** What the NIC does with a peer's READ: the status, and on success the bytes copied into {@code target}. */
    CompletionStatus serveRead(long address, int rkey, int length, byte[] target)
    {
        SimulatedRegion entry = byRkey.get(rkey);
        if (entry == null || !entry.region().access().contains(Access.REMOTE_READ) || !entry.region().contains(address, length)) {
            return CompletionStatus.REM_ACCESS_ERR;
        }
        entry.read(address, target, 0, length);
        return CompletionStatus.SUCCESS;
    }

    /** The region a local scatter entry may write into, or null when the lkey, range or access is wrong ({@code LOC_PROT_ERR}). */
    SimulatedRegion localSink(long address, int lkey, int length)
    {
        SimulatedRegion entry = byLkey.get(lkey);
        if (entry == null || !entry.region().contains(address, length)) {
            return null;
        }
        Set<Access> access = entry.region().access();
        if (!access.contains(Access.LOCAL_WRITE) || (options.iwarp() && !access.contains(Access.REMOTE_WRITE))) {
            return null;
        }
        return entry;
    }

    /** Whether {@code entry} is still registered (data lands only in a region that is). */
    boolean isRegistered(SimulatedRegion entry)
    {
        return byLkey.get(entry.region().lkey()) == entry;
    }

    int registeredRegions()
    {
        return byLkey.size();
    }

    /** Regions registered since the domain opened: one {@code ibv_reg_mr} each on a real NIC. */
    long regionRegistrations()
    {
        return regionRegistrations.get();
    }

    synchronized long bar1Used(int device)
    {
        return bar1Used.getOrDefault(device, 0L);
    }
}
