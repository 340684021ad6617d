package dev.ferry.shuffle.transport.rdma.verbs.disni;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.SVCRegMr;
import dev.ferry.shuffle.transport.rdma.verbs.Access;
import dev.ferry.shuffle.transport.rdma.verbs.MemoryRegion;
import dev.ferry.shuffle.transport.rdma.verbs.ProtectionDomain;
import dev.ferry.shuffle.transport.rdma.verbs.RegistrableMemory;
import dev.ferry.shuffle.transport.rdma.verbs.Registration;
import dev.ferry.shuffle.transport.rdma.verbs.RegistrationChunks;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsException;

import static java.util.Objects.requireNonNull;

/**
 * DiSNI's protection domain of one device. Host buffers go through {@code regMr(ByteBuffer, int)}
 * one slice per chunk (that overload registers the slice's capacity from its base address);
 * device pointers through {@code regMr(long, int, int)}, which hands the pointer to
 * {@code ibv_reg_mr} and so needs {@code nvidia_peermem}. The published key is {@code getRkey()},
 * never the lkey (SparkRDMA's lkey only worked where both are equal).
 */
final class DisniProtectionDomain
        implements ProtectionDomain
{
    private final String deviceName;
    private final IbvPd pd;
    private final int maxRegionBytes;
    private final Map<Integer, IbvMr> byLkey = new ConcurrentHashMap<>();

    DisniProtectionDomain(String deviceName, IbvPd pd, int maxRegionBytes)
    {
        this.deviceName = requireNonNull(deviceName, "deviceName is null");
        this.pd = requireNonNull(pd, "pd is null");
        this.maxRegionBytes = maxRegionBytes;
    }

    @Override
    public Registration register(RegistrableMemory memory, Set<Access> access)
            throws VerbsException
    {
        requireNonNull(memory, "memory is null");
        Access.checkCombination(access);
        if (memory.isDevice() && memory.pointer().isEmpty()) {
            throw new VerbsException("DiSNI on " + deviceName + " cannot register " + memory + ": a real NIC needs a CUDA device pointer, and this device memory has none"
                    + " (simulated GPU memory registers only with the simulated NIC; CUDA memory goes through DeviceRegistrations.register)");
        }
        int bits = accessBits(access);
        List<MemoryRegion> regions = new ArrayList<>();
        List<IbvMr> registered = new ArrayList<>();
        boolean success = false;
        try {
            for (RegistrationChunks.Chunk chunk : RegistrationChunks.split(memory.length(), maxRegionBytes)) {
                IbvMr mr = registerChunk(memory, chunk, bits);
                registered.add(mr);
                byLkey.put(mr.getLkey(), mr);
                regions.add(new MemoryRegion(mr.getAddr(), mr.getLength(), mr.getLkey(), mr.getRkey(), access, chunk.offset()));
            }
            success = true;
            return new Registration(memory, regions, this::deregister);
        }
        finally {
            if (!success) {
                for (IbvMr mr : registered) {
                    byLkey.remove(mr.getLkey());
                    deregisterQuietly(mr);
                }
            }
        }
    }

    private IbvMr registerChunk(RegistrableMemory memory, RegistrationChunks.Chunk chunk, int bits)
            throws VerbsException
    {
        SVCRegMr call = null;
        try {
            if (memory.pointer().isPresent()) {
                call = pd.regMr(memory.pointer().getAsLong() + chunk.offset(), chunk.length(), bits);
            }
            else {
                ByteBuffer view = memory.view().orElseThrow();
                call = pd.regMr(view.slice(Math.toIntExact(chunk.offset()), chunk.length()), bits);
            }
            return call.execute().getMr();
        }
        catch (IOException e) {
            throw new VerbsException("ibv_reg_mr of " + chunk.length() + " bytes at offset " + chunk.offset() + " of " + memory + " on " + deviceName
                    + " failed: " + e.getMessage() + hint(memory), e);
        }
        finally {
            if (call != null) {
                call.free();
            }
        }
    }

    private static String hint(RegistrableMemory memory)
    {
        return memory.isDevice()
                ? " (GPU memory needs nvidia_peermem loaded and fits in BAR1; see docs/rdma-deployment.md)"
                : " (pinning needs a memlock limit above the registered size: ulimit -l; see docs/rdma-deployment.md)";
    }

    private void deregister(List<MemoryRegion> regions)
            throws VerbsException
    {
        VerbsException first = null;
        for (MemoryRegion region : regions) {
            IbvMr mr = byLkey.remove(region.lkey());
            if (mr == null) {
                continue;
            }
            try {
                mr.deregMr().execute().free();
            }
            catch (IOException e) {
                if (first == null) {
                    first = new VerbsException("ibv_dereg_mr of " + region + " on " + deviceName + " failed: " + e.getMessage(), e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private static void deregisterQuietly(IbvMr mr)
    {
        try {
            mr.deregMr().execute().free();
        }
        catch (IOException | RuntimeException ignored) {
            // Cleaning up after a failed registration; the original error is what matters.
        }
    }

    /** DiSNI's flag values are public static but not final, so they are read here, at run time. */
    private static int accessBits(Set<Access> access)
    {
        int bits = 0;
        if (access.contains(Access.LOCAL_WRITE)) {
            bits |= IbvMr.IBV_ACCESS_LOCAL_WRITE;
        }
        if (access.contains(Access.REMOTE_WRITE)) {
            bits |= IbvMr.IBV_ACCESS_REMOTE_WRITE;
        }
        if (access.contains(Access.REMOTE_READ)) {
            bits |= IbvMr.IBV_ACCESS_REMOTE_READ;
        }
        return bits;
    }
}
