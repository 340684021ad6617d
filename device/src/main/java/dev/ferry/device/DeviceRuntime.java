package dev.ferry.device;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.conf.ConfigSource;
import dev.ferry.device.cufile.DeviceFile;
import dev.ferry.device.cufile.IoBufferRegistration;
import dev.ferry.device.cufile.ReadPath;
import dev.ferry.device.cufile.ReadPathVerdict;
import dev.ferry.device.ipc.IpcMappingStats;
import dev.ferry.device.memory.AllocationListener;
import dev.ferry.device.memory.BufferAllocator;
import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.device.memory.MemoryLocation;
import dev.ferry.device.memory.NativeMemory;
import dev.ferry.device.spi.DeviceBackend;
import dev.ferry.device.spi.FileReadEngine;
import dev.ferry.device.spi.HostView;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static java.lang.Math.toIntExact;
import static java.util.Objects.requireNonNull;

/**
 * The device layer for one executor: devices, allocator roots, streams, peer access, IPC and
 * device file reads, over one backend chosen by {@code spark.ferry.device}. The contract lives
 * here, once, so every backend enforces it the same way:
 * <ul>
 * <li>every range is checked before a backend sees it;</li>
 * <li>a copy between two devices needs {@link #enablePeerAccess} first;</li>
 * <li>an IPC handle cannot be opened by the process that exported it, and is opened on a named
 * device of this process (the reader's own), whose streams alone may copy it;</li>
 * <li>{@link #close()} reports leaked buffers.</li>
 * </ul>
 * Thread-safe.
 */
public final class DeviceRuntime
        implements AutoCloseable
{
    private static final Logger log = LoggerFactory.getLogger(DeviceRuntime.class);

    private final DeviceBackend backend;
    private final String selectionReason;
    private final List<BufferAllocator> deviceRoots = new ArrayList<>();
    private final List<BufferAllocator> importRoots = new ArrayList<>();
    private final BufferAllocator pinnedRoot;
    private final Set<Long> enabledPeers = ConcurrentHashMap.newKeySet();
    // Per (device, peer): empty once peer access is enabled, else why not; decided once.
    private final Map<Long, Optional<String>> peerVerdicts = new ConcurrentHashMap<>();
    private final Map<PeerLink, AtomicLong> peerBytes = new EnumMap<>(PeerLink.class);
    private final AtomicLong peerCopyRefusals = new AtomicLong();
    private final Map<CopyRoute, AtomicLong> copiedBytes = new EnumMap<>(CopyRoute.class);
    private final Map<ReadPath, AtomicLong> filesByPath = new EnumMap<>(ReadPath.class);
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicLong pinnedHostBuffers = new AtomicLong();
    private final AtomicLong pinnedHostBuffersNotLocked = new AtomicLong();
    private final AtomicBoolean notLockedLogged = new AtomicBoolean();
    private final AtomicLong stagedBytes = new AtomicLong();
    private final StreamPool streams;
    // One per acquirer of a shared runtime (DeviceRuntimes.shared); 1 for a private one.
    private final AtomicInteger references = new AtomicInteger(1);
    private volatile Runnable onLastClose = () -> {};

    public DeviceRuntime(DeviceBackend backend, long memoryLimit, long pinnedLimit, boolean recordAllocationSites, String selectionReason)
    {
        this(backend, memoryLimit, pinnedLimit, recordAllocationSites, selectionReason,
                DeviceConfigKeys.STREAMS_IDLE_PER_DEVICE.defaultValue(), DeviceConfigKeys.STAGING_CHUNK.defaultValue());
    }

    /**
     * @param idleStreamsPerDevice how many closed streams stay pooled per device
     * @param stagingChunk the size of each of a stream's two pinned staging chunks
     */
    public DeviceRuntime(DeviceBackend backend, long memoryLimit, long pinnedLimit, boolean recordAllocationSites, String selectionReason,
            int idleStreamsPerDevice, long stagingChunk)
    {
        this.backend = requireNonNull(backend, "backend is null");
        this.selectionReason = requireNonNull(selectionReason, "selectionReason is null");
        if (idleStreamsPerDevice < 0 || stagingChunk < 4096) {
            throw new IllegalArgumentException("Idle streams per device must not be negative (got " + idleStreamsPerDevice + ") and the staging chunk at least 4k (got " + stagingChunk + ")");
        }
        for (DeviceInfo device : backend.devices()) {
            long limit = memoryLimit > 0 ? Math.min(memoryLimit, device.totalMemory()) : device.totalMemory();
            MemoryLocation location = MemoryLocation.device(device.ordinal());
            deviceRoots.add(BufferAllocator.newRoot(backend.name() + "-device-" + device.ordinal(), location, limit, new DeviceMemorySource(backend), AllocationListener.NOOP, recordAllocationSites));
            // Imported IPC memory belongs to another process; it is tracked (for leaks) but never counted against this device's limit.
            importRoots.add(BufferAllocator.newRoot(backend.name() + "-ipc-imports-" + device.ordinal(), location, Long.MAX_VALUE, DeviceRuntime::refuseAllocation, AllocationListener.NOOP, recordAllocationSites));
        }
        this.pinnedRoot = BufferAllocator.newRoot(backend.name() + "-pinned", MemoryLocation.pinnedHost(), pinnedLimit, backend::allocate, AllocationListener.NOOP, recordAllocationSites);
        for (CopyRoute route : CopyRoute.values()) {
            copiedBytes.put(route, new AtomicLong());
        }
        for (ReadPath path : ReadPath.values()) {
            filesByPath.put(path, new AtomicLong());
        }
        for (PeerLink link : PeerLink.values()) {
            peerBytes.put(link, new AtomicLong());
        }
        this.streams = new StreamPool(backend, deviceRoots.size(), idleStreamsPerDevice, stagingChunk, this::allocatePinnedHost);
        log.info("Ferry device runtime: backend {} with {} device(s) ({})", backend.name(), deviceRoots.size(), selectionReason);
    }

    /** The runtime {@code spark.ferry.device} asks for. */
    public static DeviceRuntime create(ConfigSource config)
    {
        return DeviceRuntimes.create(config);
    }

    public String backendName()
    {
        return backend.name();
    }

    /** Why this backend was chosen (for {@code auto}: why CUDA was or was not used). */
    public String selectionReason()
    {
        return selectionReason;
    }

    public List<DeviceInfo> devices()
    {
        return backend.devices();
    }

    public int deviceCount()
    {
        return deviceRoots.size();
    }

    /** The root allocator of {@code device}, capped at {@code spark.ferry.device.memoryLimit}. */
    public BufferAllocator deviceAllocator(int device)
    {
        checkOpen();
        return deviceRoots.get(checkDevice(device));
    }

    public BufferAllocator pinnedAllocator()
    {
        checkOpen();
        return pinnedRoot;
    }

    /** Pinned host memory with a host view, from the pinned root; see {@link #allocatePinnedHost(BufferAllocator, long)}. */
    public PinnedHostBuffer allocatePinnedHost(long size)
    {
        return allocatePinnedHost(pinnedAllocator(), size);
    }

    /**
     * Allocates {@code size} bytes of pinned host memory from {@code allocator} (the pinned root or
     * a child of it, so limits and leak reports apply) and gives it a host view. On {@code cuda} the
     * memory is page-locked ({@code cudaHostAlloc}); on {@code simulated} and {@code host} it is an
     * ordinary direct buffer: that is counted ({@link #pinnedHostBuffersNotPageLocked()}) and logged
     * once per runtime with the backend's reason, never passed off as locked.
     *
     * @throws dev.ferry.device.memory.DeviceOutOfMemoryException when the allocator's chain or the driver refuses
     */
    public PinnedHostBuffer allocatePinnedHost(BufferAllocator allocator, long size)
    {
        checkOpen();
        requireNonNull(allocator, "allocator is null");
        if (allocator.location().isDevice()) {
            throw new IllegalArgumentException("Pinned host memory comes from the pinned allocator tree, not from '" + allocator.name() + "' (" + allocator.location() + ")");
        }
        DeviceBuffer buffer = allocator.allocate(size);
        boolean success = false;
        try {
            HostView view = backend.hostView(buffer.memory());
            ByteBuffer bytes = view.buffer().slice(toIntExact(buffer.memoryOffset()), toIntExact(buffer.length()));
            OptionalLong address = view.address().isPresent() ? OptionalLong.of(view.address().getAsLong() + buffer.memoryOffset()) : OptionalLong.empty();
            PinnedHostBuffer pinned = new PinnedHostBuffer(buffer, bytes, address, view.pageLocked(), view.detail());
            pinnedHostBuffers.incrementAndGet();
            if (!view.pageLocked()) {
                pinnedHostBuffersNotLocked.incrementAndGet();
                if (notLockedLogged.compareAndSet(false, true)) {
                    log.info("Pinned host buffers on backend {} are not page-locked: {}", backend.name(), view.detail());
                }
            }
            success = true;
            return pinned;
        }
        finally {
            if (!success) {
                buffer.close();
            }
        }
    }

    /** Pinned host buffers handed out by {@link #allocatePinnedHost}. */
    public long pinnedHostBuffersAllocated()
    {
        return pinnedHostBuffers.get();
    }

    /** Of those, the ones that are ordinary (not page-locked) memory because of the backend. */
    public long pinnedHostBuffersNotPageLocked()
    {
        return pinnedHostBuffersNotLocked.get();
    }

    /** The root allocator for {@code location}: a device's, or the pinned host root. */
    public BufferAllocator allocatorFor(MemoryLocation location)
    {
        return location.isDevice() ? deviceAllocator(location.device()) : pinnedAllocator();
    }

    /** A stream on {@code device}, from the runtime's pool (a new one only when none is idle); close it to give it back. */
    public DeviceStream newStream(int device)
    {
        checkOpen();
        return new DeviceStream(this, device, streams.take(checkDevice(device)));
    }

    void releaseStream(StreamPool.Pooled pooled)
    {
        try {
            pooled.stream.synchronize();
        }
        catch (RuntimeException e) {
            // A stream whose work failed is not handed to the next caller.
            try {
                StreamPool.destroy(pooled);
            }
            catch (RuntimeException destroyFailure) {
                e.addSuppressed(destroyFailure);
            }
            throw e;
        }
        streams.give(pooled);
    }

    Optional<PinnedStaging> staging(StreamPool.Pooled pooled)
    {
        return backend.stagesPageableCopies() ? streams.staging(pooled) : Optional.empty();
    }

    void countStaged(long bytes)
    {
        stagedBytes.addAndGet(bytes);
    }

    /** Backend streams created so far; with pooling, far fewer than streams opened. */
    public long streamsCreated()
    {
        return streams.streamsCreated();
    }

    /** Streams handed out again from the pool. */
    public long streamsReused()
    {
        return streams.streamsReused();
    }

    /** Bytes copied between a pageable JVM buffer and device memory through pinned staging chunks. */
    public long bytesStagedThroughPinned()
    {
        return stagedBytes.get();
    }

    /** Streams that could get no pinned staging (the pinned limit): their pageable copies went through the driver's own staging. */
    public long stagingRefusals()
    {
        return streams.stagingRefusals();
    }

    public boolean canAccessPeer(int device, int peer)
    {
        checkOpen();
        checkDevice(device);
        checkDevice(peer);
        return device != peer && backend.canAccessPeer(device, peer);
    }

    /**
     * Lets {@code device} copy to and from {@code peer} directly. Returns false when it was
     * already enabled; throws when the hardware has no path (see {@link #canAccessPeer}).
     */
    public boolean enablePeerAccess(int device, int peer)
    {
        checkOpen();
        if (device == peer) {
            throw new IllegalArgumentException("Peer access needs two different devices, got " + device + " twice");
        }
        if (!canAccessPeer(device, peer)) {
            throw new FerryException(ErrorCategory.EXTERNAL, "Device " + device + " cannot access device " + peer + " as a peer on backend " + backend.name());
        }
        if (enabledPeers.contains(peerKey(device, peer))) {
            return false;
        }
        backend.enablePeerAccess(device, peer);
        return enabledPeers.add(peerKey(device, peer));
    }

    public boolean isPeerAccessEnabled(int device, int peer)
    {
        return enabledPeers.contains(peerKey(device, peer));
    }

    void checkPeerAccess(int sourceDevice, int targetDevice, DeviceBuffer source, DeviceBuffer target)
    {
        if (!isPeerAccessEnabled(sourceDevice, targetDevice) && !isPeerAccessEnabled(targetDevice, sourceDevice)) {
            throw new FerryException(ErrorCategory.INTERNAL_ERROR, "Peer access between device " + sourceDevice + " and device " + targetDevice
                    + " is not enabled: cannot copy " + source.name() + " to " + target.name() + "; call enablePeerAccess first");
        }
    }

    /**
     * Exports a device buffer for another process on this host. The memory stays allocated while
     * any importer holds it open, even after every local handle is closed.
     */
    public IpcHandle exportIpc(DeviceBuffer buffer)
    {
        checkOpen();
        buffer.checkOpen("export");
        if (!buffer.location().isDevice()) {
            throw new IllegalArgumentException("Only device memory can be exported over IPC, not " + buffer.name());
        }
        return backend.exportIpc(buffer.memory(), buffer.memoryOffset(), buffer.length());
    }

    /**
     * Opens a handle exported by another process on {@code importingDevice}, this process's own
     * GPU, whose context the mapping belongs to: copies of the buffer run on that device's streams
     * ({@link DeviceStream} refuses others). The buffer's location stays the exporter's device,
     * where its bytes are. Refuses handles from this process, as CUDA does. An exporter's arena is
     * mapped once per importing device and kept for its later blocks ({@link #ipcMappings()}).
     */
    public DeviceBuffer openIpc(IpcHandle handle, int importingDevice)
    {
        checkOpen();
        requireNonNull(handle, "handle is null");
        checkDevice(importingDevice);
        if (!handle.backend().equals(backend.name())) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Cannot open " + handle + " on backend " + backend.name() + ": it was exported by backend " + handle.backend());
        }
        long pid = ProcessHandle.current().pid();
        if (handle.exporterPid() == pid) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Cannot open " + handle + " in the process that exported it (pid " + pid
                    + "): like cudaIpcOpenMemHandle, IPC handles open only in other processes");
        }
        boolean exporterAlive = ProcessHandle.of(handle.exporterPid()).map(ProcessHandle::isAlive).orElse(false);
        if (!exporterAlive) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Cannot open " + handle + ": the exporting process (pid " + handle.exporterPid() + ") no longer runs, so its memory is gone");
        }
        checkDevice(handle.device());
        NativeMemory memory = backend.openIpc(handle, importingDevice);
        boolean success = false;
        try {
            if (memory.importingDevice().orElse(-1) != importingDevice) {
                throw new FerryException(ErrorCategory.INTERNAL_ERROR, "Backend " + backend.name() + " imported " + handle + " as " + memory.describe()
                        + ", not on the importing device " + importingDevice);
            }
            DeviceBuffer buffer = importRoots.get(handle.device()).wrapForeignMemory(memory);
            success = true;
            return buffer;
        }
        finally {
            if (!success) {
                // The wrap failed before a ledger owned the mapping, so nobody else will release it.
                freeQuietly(memory);
            }
        }
    }

    /** How IPC imports used their arena mappings: opened once per exporter arena and importing device, reused by later blocks. */
    public IpcMappingStats ipcMappings()
    {
        return backend.ipcMappings();
    }

    /** Closes the idle arena mappings of exporters that no longer run (a peer executor left); returns how many. */
    public int sweepPeerMappings()
    {
        checkOpen();
        return backend.sweepPeerMappings();
    }

    /** The exporting process {@code exporterPid} departed: its arena mappings close (now, or with their last open block). Returns how many there were. */
    public int closePeerMappings(long exporterPid)
    {
        checkOpen();
        return backend.closePeerMappings(exporterPid);
    }

    /**
     * Copies all of {@code source} into {@code target} at offset 0, directly from GPU to GPU, on a
     * pooled stream of {@code target}'s device (the reader's GPU), and waits for it. Peer access
     * from the target's device to the source's is enabled on first use, once per pair, after the
     * backend says the pair can ({@code cudaDeviceCanAccessPeer}); a pair that cannot is remembered
     * and every later copy is refused at once with the same reason, which the caller uses to take
     * another route. Both buffers on one device: a device-local copy, no peer link. The copy is
     * counted on {@link CopyRoute#PEER} and on {@code link}, the bus the topology says the pair
     * uses; no host memory is crossed.
     *
     * @param source device memory, this process's or an IPC import opened on {@code target}'s device
     * @param target device memory on the reader's GPU, at least as long as {@code source}
     */
    public PeerCopy copyFromPeer(DeviceBuffer source, DeviceBuffer target, PeerLink link)
    {
        checkOpen();
        requireNonNull(source, "source is null");
        requireNonNull(target, "target is null");
        requireNonNull(link, "link is null");
        if (!source.location().isDevice() || !target.location().isDevice()) {
            throw new IllegalArgumentException("A peer copy moves device memory to device memory, not " + source.name() + " (" + source.location() + ") to "
                    + target.name() + " (" + target.location() + ")");
        }
        int targetDevice = target.location().device();
        int sourceDevice = source.location().device();
        boolean sameDevice = sourceDevice == targetDevice;
        if (!sameDevice) {
            Optional<String> refusal = peerAccessRefusal(targetDevice, sourceDevice);
            if (refusal.isPresent()) {
                peerCopyRefusals.incrementAndGet();
                return new PeerCopy(0, refusal, false);
            }
        }
        try (DeviceStream stream = newStream(targetDevice)) {
            stream.copy(source, 0, target, 0, source.length());
            stream.synchronize();
        }
        if (!sameDevice) {
            peerBytes.get(link).addAndGet(source.length());
        }
        return new PeerCopy(source.length(), Optional.empty(), sameDevice);
    }

    /**
     * Why {@code device} cannot copy from {@code peer} directly, or empty once peer access is
     * enabled. Decided once per pair: the first call asks the backend and enables access; a
     * refusal is logged once and kept.
     */
    public Optional<String> peerAccessRefusal(int device, int peer)
    {
        checkOpen();
        checkDevice(device);
        checkDevice(peer);
        if (device == peer) {
            return Optional.empty();
        }
        return peerVerdicts.computeIfAbsent(peerKey(device, peer), key -> {
            Optional<String> refusal;
            if (!backend.canAccessPeer(device, peer)) {
                refusal = Optional.of("backend " + backend.name() + ": device " + device + " cannot access device " + peer + " as a peer (cudaDeviceCanAccessPeer says no)");
            }
            else {
                try {
                    enablePeerAccess(device, peer);
                    refusal = Optional.empty();
                }
                catch (RuntimeException e) {
                    refusal = Optional.of("backend " + backend.name() + ": enabling peer access from device " + device + " to device " + peer + " failed: " + e.getMessage());
                }
            }
            refusal.ifPresent(reason -> log.warn("Peer copies from device {} to device {} are refused; callers take another route: {}", peer, device, reason));
            return refusal;
        });
    }

    /** Bytes copied GPU to GPU by {@link #copyFromPeer}, on the given link. */
    public long peerBytesCopied(PeerLink link)
    {
        return peerBytes.get(requireNonNull(link, "link is null")).get();
    }

    /** Peer copies refused because the pair has no peer access (each fell back to another route, its caller's choice). */
    public long peerCopyRefusals()
    {
        return peerCopyRefusals.get();
    }

    /** Bytes that crossed a PCIe link between a GPU and host memory, in either direction, on any copy route. */
    public long hostLinkBytes()
    {
        long total = 0;
        for (CopyRoute route : CopyRoute.values()) {
            if (route.crossesHostLink()) {
                total += bytesCopied(route);
            }
        }
        return total;
    }

    private static void freeQuietly(NativeMemory memory)
    {
        try {
            NativeMemory.freeUnowned(memory);
        }
        catch (RuntimeException e) {
            log.warn("Could not release IPC mapping {}", memory.describe(), e);
        }
    }

    public long pendingIpcReleaseBytes()
    {
        return backend.pendingIpcReleaseBytes();
    }

    public long reclaimIpcReleases()
    {
        return backend.reclaimIpcReleases();
    }

    /** Freed bytes of {@code device} that importers still hold (still counted against its limit). */
    public long pendingIpcReleaseBytes(int device)
    {
        return backend.pendingIpcReleaseBytes(checkDevice(device));
    }

    /**
     * The device's books: what its allocator tree counts, what importers hold after free, and
     * what the backend's memory pool really holds for buffers. {@link DeviceMemoryBooks#exact()}
     * says whether they agree.
     */
    public DeviceMemoryBooks memoryBooks(int device)
    {
        checkOpen();
        BufferAllocator root = deviceRoots.get(checkDevice(device));
        return new DeviceMemoryBooks(device, root.allocatedBytes(), backend.pendingIpcReleaseBytes(device), backend.deviceBytesInUse(device));
    }

    /**
     * Registers a device buffer that will be reused as a direct-read target (cuFileBufRegister).
     * The registration holds a reference to the buffer until it is closed.
     */
    public IoBufferRegistration registerForDirectReads(DeviceBuffer buffer)
    {
        checkOpen();
        buffer.checkOpen("register for direct reads");
        if (!buffer.location().isDevice()) {
            throw new IllegalArgumentException("Only device memory is registered for direct reads, not " + buffer.name());
        }
        DeviceBuffer retained = buffer.retain();
        boolean success = false;
        try {
            IoBufferRegistration registration = new IoBufferRegistration(retained, backend.registerIoBuffer(retained.memory()));
            success = true;
            return registration;
        }
        finally {
            if (!success) {
                retained.close();
            }
        }
    }

    /**
     * The allocation {@code buffer} was carved from (a pool slab on {@code cuda}, the simulated GPU's
     * arena), for registrations made once per region: the region's offset is where this buffer
     * starts in it. Empty for memory without one (host backend, pinned memory, IPC imports): register
     * such a buffer on its own.
     */
    public Optional<DeviceRegion> regionOf(DeviceBuffer buffer)
    {
        checkOpen();
        requireNonNull(buffer, "buffer is null");
        buffer.checkOpen("look up its region");
        if (!buffer.location().isDevice() || buffer.memory().importingDevice().isPresent()) {
            return Optional.empty();
        }
        return backend.region(buffer.memory()).map(region -> region.shifted(buffer.memoryOffset()));
    }

    /**
     * Lends out the raw device address of {@code buffer} for registration with a NIC (GPUDirect
     * RDMA). Only the cuda backend's own device memory has one; host and simulated memory (which
     * the JVM addresses as a ByteBuffer), pinned host memory, IPC imports and closed or empty
     * buffers are refused with a message naming the buffer and the backend. The export holds a
     * reference to the buffer until it is closed, so the memory outlives the registration.
     */
    public DeviceMemoryExport exportForRdma(DeviceBuffer buffer)
    {
        checkOpen();
        requireNonNull(buffer, "buffer is null");
        buffer.checkOpen("export for RDMA registration");
        if (!buffer.location().isDevice()) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Cannot export " + buffer.name() + " for RDMA registration on backend '" + backend.name()
                    + "': it is " + buffer.location() + ", not device memory");
        }
        if (buffer.length() == 0) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Cannot export " + buffer.name() + " for RDMA registration: it is empty");
        }
        DeviceBuffer retained = buffer.retain();
        boolean success = false;
        try {
            OptionalLong base = backend.nicAddress(retained.memory());
            if (base.isEmpty()) {
                throw new FerryException(ErrorCategory.USER_ERROR, "Cannot export " + buffer.name() + " for RDMA registration: backend '" + backend.name()
                        + "' has no device address a NIC can register for it (only device memory the cuda backend allocated in this process has one:"
                        + " simulated and host device memory is host memory, registered through its ByteBuffer, and an IPC import belongs to its exporter)");
            }
            DeviceMemoryExport export = new DeviceMemoryExport(retained, backend.name(), base.getAsLong() + retained.memoryOffset());
            success = true;
            return export;
        }
        finally {
            if (!success) {
                retained.close();
            }
        }
    }

    /** Opens {@code path} for reads into device buffers, deciding the read path for this file. */
    public DeviceFile openFile(Path path)
    {
        checkOpen();
        FileReadEngine engine = backend.openFile(requireNonNull(path, "path is null"));
        ReadPathVerdict verdict = engine.verdict();
        filesByPath.get(verdict.path()).incrementAndGet();
        if (verdict.path() != ReadPath.TRUE_DIRECT) {
            log.info("Device reads of {} take the {} path: {}", path, verdict.path(), verdict.reason());
        }
        return new DeviceFile(this, path, engine);
    }

    /** How many files were opened per read path (every fallback is counted). */
    public long filesOpened(ReadPath path)
    {
        return filesByPath.get(path).get();
    }

    public long bytesCopied(CopyRoute route)
    {
        return copiedBytes.get(route).get();
    }

    void countCopy(CopyRoute route, long bytes)
    {
        copiedBytes.get(route).addAndGet(bytes);
    }

    private int checkDevice(int device)
    {
        if (device < 0 || device >= deviceRoots.size()) {
            throw new IllegalArgumentException("No device " + device + " on backend " + backend.name() + ", which has " + deviceRoots.size() + " device(s)");
        }
        return device;
    }

    private void checkOpen()
    {
        if (closed.get()) {
            throw new IllegalStateException("Device runtime (" + backend.name() + ") is closed");
        }
    }

    private static long peerKey(int device, int peer)
    {
        return ((long) device << 32) | (peer & 0xFFFFFFFFL);
    }

    private static NativeMemory refuseAllocation(MemoryLocation location, long size)
    {
        throw new IllegalStateException("The IPC import allocator only accounts imported memory; it cannot allocate");
    }

    /**
     * Closes every allocator and then the backend. Idempotent. Throws {@link IllegalStateException}
     * with the leak report when buffers are still open (the backend is closed regardless).
     */
    @Override
    public void close()
    {
        if (closed.get() || references.decrementAndGet() > 0) {
            return;
        }
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        onLastClose.run();
        RuntimeException streamFailure = null;
        try {
            streams.close();
        }
        catch (RuntimeException e) {
            streamFailure = e;
        }
        List<String> leaks = new ArrayList<>();
        List<BufferAllocator> all = new ArrayList<>(deviceRoots);
        all.addAll(importRoots);
        all.add(pinnedRoot);
        for (BufferAllocator allocator : all) {
            try {
                allocator.close();
            }
            catch (IllegalStateException e) {
                leaks.add(e.getMessage());
            }
        }
        backend.close();
        if (!leaks.isEmpty()) {
            IllegalStateException leaked = new IllegalStateException(String.join("\n", leaks));
            if (streamFailure != null) {
                leaked.addSuppressed(streamFailure);
            }
            throw leaked;
        }
        if (streamFailure != null) {
            throw streamFailure;
        }
    }

    /** Another holder of a shared runtime; false when it is already closing. Called by {@link DeviceRuntimes#shared}. */
    boolean retainShared()
    {
        while (true) {
            int now = references.get();
            if (now <= 0 || closed.get()) {
                return false;
            }
            if (references.compareAndSet(now, now + 1)) {
                return true;
            }
        }
    }

    void onLastClose(Runnable action)
    {
        this.onLastClose = requireNonNull(action, "action is null");
    }

    /** How many holders share this runtime (1 for a private one); the last {@link #close()} closes it. */
    public int references()
    {
        return Math.max(0, references.get());
    }

    /** The root source of a device tree: the backend, whose deferred frees still count until reclaimed. */
    private static final class DeviceMemorySource
            implements BufferAllocator.MemorySource
    {
        private final DeviceBackend backend;

        DeviceMemorySource(DeviceBackend backend)
        {
            this.backend = backend;
        }

        @Override
        public NativeMemory allocate(MemoryLocation location, long size)
        {
            return backend.allocate(location, size);
        }

        @Override
        public long heldAfterFree(MemoryLocation location)
        {
            return backend.pendingIpcReleaseBytes(location.device());
        }

        @Override
        public long reclaim(MemoryLocation location)
        {
            return backend.reclaimIpcReleases();
        }
    }
}
