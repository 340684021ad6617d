package dev.ferry.shuffle.transport.rdma;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.atomic.AtomicLong;

import dev.ferry.device.DeviceRegion;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.device.pool.BlockLease;
import dev.ferry.shuffle.store.BlockBytes;
import dev.ferry.shuffle.store.HostRegion;
import dev.ferry.shuffle.transport.rdma.verbs.Access;
import dev.ferry.shuffle.transport.rdma.verbs.ConnectionToken;
import dev.ferry.shuffle.transport.rdma.verbs.DeviceRegistrations;
import dev.ferry.shuffle.transport.rdma.verbs.ProtectionDomain;
import dev.ferry.shuffle.transport.rdma.verbs.ReadTarget;
import dev.ferry.shuffle.transport.rdma.verbs.RegistrableMemory;
import dev.ferry.shuffle.transport.rdma.verbs.Registration;
import dev.ferry.shuffle.transport.rdma.verbs.RegistrationCache;
import dev.ferry.shuffle.transport.rdma.verbs.RemoteReader;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsConnection;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsDevice;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsException;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsSettings;
import dev.ferry.shuffle.transport.server.SessionAdmissions;
import dev.ferry.shuffle.transport.wire.RdmaAdmission;
import dev.ferry.shuffle.transport.wire.RdmaAdmissionRequest;
import dev.ferry.shuffle.transport.wire.RemoteSlice;
import dev.ferry.shuffle.transport.wire.RemoteSlices.Memory;
import dev.ferry.shuffle.transport.wire.RemoteSlices;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.util.Objects.requireNonNull;

/**
 * This executor's RDMA NIC as the stream transport uses it for the RDMA routes. Serving: a block is
 * registered where it lies (the store's own off-heap bytes, no copy) for remote READs and stays
 * registered until the peer is done with it (its FetchDone, next request or disconnect); a block of
 * a stored output in memory ({@link HostRegion}) is a slice of the whole output's registration, made
 * once and dropped when the store releases the output and no served block of it is left. Reading:
 * one-sided READs ({@link RemoteReader}) into a landing buffer registered once and reused
 * ({@link RdmaLandingPool}), over verbs connections pooled per peer
 * NIC (a connection serves one fetch at a time; one that failed is closed, never reused).
 * <p>Connection setup goes through the authenticated stream: a reader without an idle connection to
 * the peer's NIC first asks the peer, over its (authenticated, maybe encrypted) TCP session, for an
 * {@link RdmaAdmission} ({@link #admit}: a one-time token bound to that session, and the listener),
 * and presents the token in its connect request's private data; the peer's listener accepts no queue
 * pair without one ({@code ConnectionAdmissions}). Remote slices, like the token, travel only on
 * that stream, and a reader READs a peer's slices only over a connection that peer admitted.
 */
public final class VerbsBlocks
        implements SessionAdmissions, AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(VerbsBlocks.class);
    /** Idle registered landing buffers a reader keeps (each registered once while it lives). */
    public static final long DEFAULT_LANDING_RETAIN_BYTES = 64L << 20;

    private final VerbsDevice device;
    private final VerbsSettings settings;
    private final int readChunkBytes;
    private final Duration timeout;
    private final Map<InetSocketAddress, LinkedBlockingDeque<VerbsConnection>> idle = new ConcurrentHashMap<>();
    // Which executor's NIC each pooled peer listener is, so a departed executor's connections are closed.
    private final Map<String, Set<InetSocketAddress>> nicsByExecutor = new ConcurrentHashMap<>();
    private volatile boolean closed;
    // GPU memory is registered a region (pool slab, simulated arena) at a time, once; blocks are slices of it.
    private final RegistrationCache deviceRegions;
    private static final Set<Access> DEVICE_REGION_ACCESS = Collections.unmodifiableSet(EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ));
    // Regions whose whole registration the NIC refused (a slab larger than BAR1 allows): registered per block instead. A few slabs at most.
    private final Set<Object> perBlockRegions = Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));
    // GPU blocks registered one at a time because their region could not be registered whole (the fallback above), counted.
    private final AtomicLong perBlockDeviceRegistrations = new AtomicLong();
    // Host blocks are served as slices of their stored output's registration (one per output, not per block).
    private final RegistrationCache hostRegions;
    // Host blocks without a region (read back from disk, copied): registered per block, counted.
    private final AtomicLong perBlockHostRegistrations = new AtomicLong();
    // Where this reader's READs land: buffers registered once and reused.
    private final RdmaLandingPool landings;

    /** Takes ownership of {@code device}; keeps {@link #DEFAULT_LANDING_RETAIN_BYTES} of idle landing buffers. */
    public VerbsBlocks(VerbsDevice device, VerbsSettings settings, int readChunkBytes, Duration timeout)
    {
        this(device, settings, readChunkBytes, timeout, DEFAULT_LANDING_RETAIN_BYTES);
    }

    /** Takes ownership of {@code device}; {@code landingRetainBytes}: idle registered landing buffers kept for later READs (0: each freed after its block). */
    public VerbsBlocks(VerbsDevice device, VerbsSettings settings, int readChunkBytes, Duration timeout, long landingRetainBytes)
    {
        this.device = requireNonNull(device, "device is null");
        // Regions are READ sources for peers and READ sinks for this executor's own device landings (GPUDIRECT_RDMA into its GPU): one registration serves both.
        this.deviceRegions = new RegistrationCache(device.protectionDomain(), DEVICE_REGION_ACCESS);
        this.hostRegions = new RegistrationCache(device.protectionDomain(), Access.remoteReadable());
        this.landings = new RdmaLandingPool(device.protectionDomain(), landingRetainBytes);
        this.settings = requireNonNull(settings, "settings is null");
        this.timeout = requireNonNull(timeout, "timeout is null");
        if (readChunkBytes <= 0) {
            throw new IllegalArgumentException("read chunk must be positive: " + readChunkBytes);
        }
        this.readChunkBytes = readChunkBytes;
    }

    public String deviceName()
    {
        return device.name();
    }

    /** A block registered for remote READs (an empty block: no registration); closing deregisters it, then releases the block's bytes (host) or lease (device). */
    public record Exported(AutoCloseable bytes, Registration registration, RemoteSlices slices)
            implements AutoCloseable
    {
        @Override
        public void close()
        {
            try {
                if (registration != null && registration.isRegistered()) {
                    registration.deregister();
                }
            }
            catch (VerbsException | RuntimeException e) {
                LOG.debug("Deregistering an RDMA block: {}", e.getMessage());
            }
            finally {
                try {
                    bytes.close();
                }
                catch (Exception e) {
                    LOG.debug("Releasing an RDMA block: {}", e.getMessage());
                }
            }
        }
    }

    /** Server side: a token for one queue pair from {@code readerNicHost}, bound to TCP session {@code session}, and this NIC's listener. */
    @Override
    public RdmaAdmission admit(long session, RdmaAdmissionRequest request)
            throws VerbsException
    {
        ConnectionToken token = device.admissions().issue(session, request.readerNicHost());
        InetSocketAddress listen = device.listenAddress();
        return new RdmaAdmission(token.privateData(), listen.getAddress().getHostAddress(), listen.getPort());
    }

    /** Server side: TCP session {@code session} closed; its unused tokens admit nothing. */
    @Override
    public void sessionClosed(long session)
    {
        device.admissions().revokeSession(session);
    }

    /** Asks a peer, over the authenticated TCP session to it, to admit one queue pair from this reader's NIC. */
    @FunctionalInterface
    public interface Admitter
    {
        RdmaAdmission admit(String readerNicHost)
                throws IOException;
    }

    /**
     * Reader side: an idle connection to the peer's NIC at {@code knownPeerNic} (null: not yet
     * known), else a new one admitted through {@code admitter}. Give it back with {@link #release}.
     */
    public VerbsConnection connection(InetSocketAddress knownPeerNic, Admitter admitter)
            throws IOException
    {
        if (closed) {
            throw new IOException("RDMA transport is closed");
        }
        if (knownPeerNic != null) {
            LinkedBlockingDeque<VerbsConnection> pooled = idle.get(knownPeerNic);
            for (VerbsConnection connection = pooled == null ? null : pooled.pollFirst(); connection != null; connection = pooled.pollFirst()) {
                if (connection.isOpen()) {
                    return connection;
                }
            }
        }
        RdmaAdmission admission = admitter.admit(device.listenAddress().getAddress().getHostAddress());
        return device.connect(new InetSocketAddress(admission.nicHost(), admission.nicPort()), timeout, new ConnectionToken(admission.token()));
    }

    /** Reader side: {@code nic} is executor {@code executorId}'s NIC listener, for {@link #peerLeft}. */
    public void bindExecutor(String executorId, InetSocketAddress nic)
    {
        requireNonNull(nic, "nic is null");
        nicsByExecutor.computeIfAbsent(requireNonNull(executorId, "executorId is null"), key -> ConcurrentHashMap.newKeySet()).add(nic);
    }

    /**
     * Executor {@code executorId} departed: closes the idle connections to its NIC(s), which would
     * otherwise hold queue pairs (and the peer's accepted endpoints) until this transport closes.
     * A connection in use now is closed by its fetch, which fails. Returns how many were closed.
     */
    public int peerLeft(String executorId)
    {
        Set<InetSocketAddress> nics = nicsByExecutor.remove(requireNonNull(executorId, "executorId is null"));
        if (nics == null) {
            return 0;
        }
        int count = 0;
        for (InetSocketAddress nic : nics) {
            LinkedBlockingDeque<VerbsConnection> pooled = idle.remove(nic);
            for (VerbsConnection connection = pooled == null ? null : pooled.pollFirst(); connection != null; connection = pooled.pollFirst()) {
                connection.close();
                count++;
            }
        }
        return count;
    }

    /** Queue pairs open on this NIC, both directions (for leak checks). */
    public int openEndpoints()
    {
        return device.openEndpoints();
    }

    /** Reader side: back to the pool after a fetch that went well; closed (never reused) otherwise. */
    public void release(VerbsConnection connection, boolean healthy)
    {
        if (healthy && !closed && connection.isOpen()) {
            idle.computeIfAbsent(connection.peer(), key -> new LinkedBlockingDeque<>()).offerFirst(connection);
        }
        else {
            connection.close();
        }
    }

    /**
     * Registers {@code bytes} (taking ownership) and describes where a peer READs them. A block of a
     * stored output in memory ({@link BlockBytes#region}) is a slice of the output's registration,
     * made the first time one of its blocks is served ({@link RegistrationCache}) and dropped once the
     * store released the output and its last served block is done; other blocks are registered alone.
     */
    public Exported export(BlockBytes bytes)
            throws VerbsException
    {
        if (bytes.length() == 0) {
            // Nothing to READ (and a NIC registers no empty region): the response alone carries the block.
            InetSocketAddress listen = device.listenAddress();
            return new Exported(bytes, null, new RemoteSlices(Memory.HOST, 0, listen.getAddress().getHostAddress(), listen.getPort(), List.of()));
        }
        boolean success = false;
        try {
            int length = Math.toIntExact(bytes.length());
            Optional<HostRegion> region = bytes.region();
            Registration registration;
            if (region.isPresent()) {
                registration = hostRegions.block(region.get().key(), (domain, access) -> domain.register(RegistrableMemory.host(region.get().bytes()), access),
                        region.get().offset(), length, region.get().onRelease());
            }
            else {
                perBlockHostRegistrations.incrementAndGet();
                registration = device.protectionDomain().register(RegistrableMemory.host(bytes.buffer().nioBuffer(0, length)), Access.remoteReadable());
            }
            try {
                RemoteSlices slices = slices(Memory.HOST, length, registration);
                success = true;
                return new Exported(bytes, registration, slices);
            }
            finally {
                if (!success) {
                    registration.deregister();
                }
            }
        }
        finally {
            if (!success) {
                bytes.close();
            }
        }
    }

    /**
     * Registers a borrowed device buffer (taking ownership of the lease) for GPUDirect RDMA READs.
     * Where the runtime names the region the buffer lies in ({@link DeviceRuntime#regionOf}: a pool
     * slab, a simulated GPU's arena), the whole region is registered the first time one of its blocks
     * is served and kept ({@link RegistrationCache}): the block is a slice of that registration, so
     * serving a block costs no {@code ibv_reg_mr}; the region is deregistered when its memory is
     * released (the runtime's release hook) or this NIC closes. Other memory, and a region the NIC
     * cannot register whole (BAR1 smaller than a slab; logged once per region), is registered per
     * block ({@link DeviceRegistrations#register}). The NIC refuses GPU memory without peer memory
     * ({@code nvidia_peermem}; the simulated NIC as configured) or beyond BAR1.
     */
    public Exported exportDevice(DeviceRuntime runtime, BlockLease lease)
            throws VerbsException
    {
        boolean success = false;
        try {
            int length = Math.toIntExact(lease.length());
            Registration registration = registerDevice(runtime, lease.buffer(), length, Access.remoteReadable());
            try {
                RemoteSlices slices = slices(Memory.DEVICE, length, registration);
                success = true;
                return new Exported(lease, registration, slices);
            }
            finally {
                if (!success) {
                    registration.deregister();
                }
            }
        }
        finally {
            if (!success) {
                lease.close();
            }
        }
    }

    /**
     * A registration of {@code length} bytes of {@code buffer}: a slice of its whole region's (made
     * once, {@link RegistrationCache}) where the region fits, else the buffer alone with
     * {@code perBlockAccess}.
     */
    private Registration registerDevice(DeviceRuntime runtime, DeviceBuffer buffer, int length, Set<Access> perBlockAccess)
            throws VerbsException
    {
        Optional<DeviceRegion> known = runtime.regionOf(buffer);
        Optional<DeviceRegion> region = known.filter(candidate -> !perBlockRegions.contains(candidate.key()));
        if (region.isPresent()) {
            try {
                return deviceRegions.block(region.get().key(), (domain, access) -> registerRegion(region.get(), domain, access), region.get().offset(), length);
            }
            catch (VerbsException e) {
                // The whole region does not fit (BAR1 smaller than a slab): its blocks are registered one at a time, as before.
                if (perBlockRegions.add(region.get().key())) {
                    LOG.warn("Ferry GPUDirect RDMA: {} cannot register the whole {} ({}); its blocks are registered one at a time", device.name(), region.get(),
                            e.getMessage());
                }
            }
        }
        if (known.isPresent()) {
            perBlockDeviceRegistrations.incrementAndGet();
        }
        return DeviceRegistrations.register(runtime, buffer, device.protectionDomain(), perBlockAccess);
    }

    /** Registers the whole region and arranges for it to be deregistered before its memory is given back. */
    private Registration registerRegion(DeviceRegion region, ProtectionDomain domain, Set<Access> access)
            throws VerbsException
    {
        RegistrableMemory memory = region.bytes().isPresent()
                ? RegistrableMemory.simulatedDevice(region.device(), region.bytes().get())
                : RegistrableMemory.devicePointer(region.device(), region.address().getAsLong(), region.size());
        Registration registration = domain.register(memory, access);
        Object key = region.key();
        region.onRelease(() -> {
            try {
                deviceRegions.released(key);
            }
            catch (VerbsException e) {
                LOG.warn("Deregistering {} from {} before its memory is released failed: {}", region, device.name(), e.getMessage());
            }
        });
        return registration;
    }

    /** GPU memory regions registered with this NIC now (each once, whatever number of blocks it served). */
    public int registeredDeviceRegions()
    {
        return deviceRegions.registeredRegions();
    }

    /** GPU memory region registrations made since this NIC opened. */
    public long deviceRegionRegistrations()
    {
        return deviceRegions.registrations();
    }

    /** GPU blocks registered alone because the NIC refused their whole region (BAR1 smaller than a slab): the fallback, counted. */
    public long perBlockDeviceRegistrations()
    {
        return perBlockDeviceRegistrations.get();
    }

    /** Stored host outputs registered with this NIC now (each once, whatever number of its blocks were served). */
    public int registeredHostRegions()
    {
        return hostRegions.registeredRegions();
    }

    /** Stored host output registrations made since this NIC opened. */
    public long hostRegionRegistrations()
    {
        return hostRegions.registrations();
    }

    /** Host blocks served without a region (read back from disk or copied), each registered alone. */
    public long perBlockHostRegistrations()
    {
        return perBlockHostRegistrations.get();
    }

    /** Landing buffers registered as READ sinks now (each once while it lives). */
    public int registeredLandings()
    {
        return landings.registeredRegions();
    }

    /** Landing buffer registrations made since this NIC opened (a reused buffer is not registered again). */
    public long landingRegistrations()
    {
        return landings.registrations();
    }

    /** READs that landed in an idle, still registered buffer. */
    public long reusedLandings()
    {
        return landings.reused();
    }

    private RemoteSlices slices(Memory memory, int length, Registration registration)
            throws VerbsException
    {
        List<RemoteSlice> slices = registration.remoteSlices(0, length);
        InetSocketAddress listen = device.listenAddress();
        return new RemoteSlices(memory, length, listen.getAddress().getHostAddress(), listen.getPort(), slices);
    }

    /**
     * READs the block {@code response} describes into a host buffer owned by the caller (a landing
     * buffer registered once and reused, {@link RdmaLandingPool}; releasing it returns the buffer).
     * For a GPUDirect RDMA block the peer's NIC reads its GPU memory and this NIC writes host memory:
     * the block goes straight to where Spark's CPU decoder wants it, never through this executor's GPU.
     */
    public BlockBytes read(RemoteSlices response, BufferAllocator allocator, VerbsConnection connection)
            throws IOException
    {
        InetSocketAddress listener = new InetSocketAddress(response.nicHost(), response.nicPort());
        if (!listener.equals(connection.peer())) {
            throw new IOException("The block's location names NIC listener " + listener + ", but the peer admitted this reader at " + connection.peer());
        }
        int length = Math.toIntExact(response.length());
        if (length == 0) {
            return new BlockBytes(allocator.buffer(0), 0);
        }
        if (closed) {
            throw new IOException("RDMA transport is closed");
        }
        RdmaLandingPool.Sink landing = landings.take(allocator, length);
        ArrowBuf body = landing.body();
        boolean success = false;
        try {
            try {
                readInto(response, landing.registration(), connection);
            }
            finally {
                // The landing buffer stays registered (for its next block); this only ends the block's use of it.
                landing.registration().deregister();
            }
            success = true;
            return new BlockBytes(body, length);
        }
        finally {
            if (!success) {
                body.close();
            }
        }
    }

    /**
     * READs the block {@code response} describes straight into {@code target}, memory of this
     * executor's GPU registered with this NIC for the READ's duration (GPUDirect RDMA into the
     * reader's GPU, for a device consumer): the peer's NIC reads its GPU memory and this NIC writes
     * this GPU's, no host memory on either side. The target is registered as the served blocks are:
     * as a slice of its region's registration where the region is registered whole. A NIC that
     * cannot register the target (no peer memory here) is a {@link VerbsException}, before anything
     * is read.
     */
    public void readToDevice(RemoteSlices response, DeviceRuntime runtime, DeviceBuffer target, VerbsConnection connection)
            throws IOException
    {
        InetSocketAddress listener = new InetSocketAddress(response.nicHost(), response.nicPort());
        if (!listener.equals(connection.peer())) {
            throw new IOException("The block's location names NIC listener " + listener + ", but the peer admitted this reader at " + connection.peer());
        }
        if (response.length() > target.length()) {
            throw new IOException("A block of " + response.length() + " bytes does not fit the device landing buffer of " + target.length());
        }
        if (response.length() == 0) {
            return;
        }
        Registration sink = registerDevice(runtime, target, Math.toIntExact(response.length()), Access.readSink());
        try {
            readInto(response, sink, connection);
        }
        finally {
            sink.deregister();
        }
    }

    /** One-sided READs of every slice of {@code response} into {@code sink}, over {@code connection}, admitted by the peer's NIC. */
    private void readInto(RemoteSlices response, Registration sink, VerbsConnection connection)
            throws IOException
    {
        if (closed) {
            throw new IOException("RDMA transport is closed");
        }
        List<ReadTarget> targets = new ArrayList<>(response.slices().size());
        for (RemoteSlice slice : response.slices()) {
            targets.add(new ReadTarget(slice, slice.offset()));
        }
        new RemoteReader(connection, settings, readChunkBytes).read(targets, sink, timeout);
    }

    @Override
    public void close()
    {
        closed = true;
        idle.values().forEach(connections -> connections.forEach(VerbsConnection::close));
        idle.clear();
        try {
            deviceRegions.close();
        }
        catch (VerbsException e) {
            LOG.warn("Deregistering GPU memory regions from {} failed: {}", device.name(), e.getMessage());
        }
        try {
            hostRegions.close();
        }
        catch (VerbsException e) {
            LOG.warn("Deregistering stored host outputs from {} failed: {}", device.name(), e.getMessage());
        }
        landings.close();
        device.close();
    }
}
