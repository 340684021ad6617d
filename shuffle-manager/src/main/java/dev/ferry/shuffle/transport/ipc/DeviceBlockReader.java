package dev.ferry.shuffle.transport.ipc;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

import dev.ferry.device.DeviceEvent;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceStream;
import dev.ferry.device.IpcHandle;
import dev.ferry.device.PeerCopy;
import dev.ferry.device.PeerLink;
import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.topology.route.Route;
import dev.ferry.shuffle.transport.metrics.RouteCounters;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import static java.lang.Math.toIntExact;
import static java.util.Objects.requireNonNull;

/**
 * The reader's half of a same-node GPU block transfer: opens the writer's exported block
 * ({@link IpcHandle}, from {@link DeviceRuntime#exportIpc}) on this executor's own GPU
 * ({@link DeviceRuntime#openIpc(IpcHandle, int)}: the reader's context, never one on the writer's
 * GPU; the writer's arena is mapped once and kept, each block is an offset into it) and copies it
 * <ul>
 * <li>over {@code NVLINK} or {@code PCIE_P2P}: a peer copy into a buffer on the reader's GPU
 *     ({@link DeviceRuntime#copyFromPeer}; peer access is enabled once per pair). A pair the
 *     backend refuses falls back to {@code HOST_STAGED}, counted there and in
 *     {@link #peerFallbacks()}, with the reason logged once;</li>
 * <li>over {@code HOST_STAGED}: in chunks of at most {@code bounceBytes} through two pinned host
 *     staging buffers, the download of one chunk overlapping the upload of the previous one, for
 *     GPU pairs without usable peer access;</li>
 * <li>to host memory when the reader's consumer runs on the CPU: one D->H out of the writer's GPU,
 *     counted as {@code PEER_GPU_D2H} whatever pair route the policy named (no peer link is used).</li>
 * </ul>
 * Closing the imported block ends this reader's lease on it, which lets the writer free the block
 * once every reader is done. Every block is counted on the route that carried it. Thread-safe if
 * the runtime is.
 */
public final class DeviceBlockReader
        implements AutoCloseable
{
    private static final Logger log = LoggerFactory.getLogger(DeviceBlockReader.class);
    private static final Set<Route> DEVICE_ROUTES = EnumSet.of(Route.NVLINK, Route.PCIE_P2P, Route.HOST_STAGED);

    private final DeviceRuntime runtime;
    private final int device;
    private final RouteCounters counters;
    private final long bounceBytes;
    private final HostLandingPool hostLanding;
    private final AtomicLong peerFallbacks = new AtomicLong();

    /**
     * {@code device}: this executor's GPU, where imports are opened and device reads land;
     * {@code hostLandingRetainBytes}: idle pinned landing buffers kept for blocks wanted in host memory ({@link HostLandingPool}).
     */
    public DeviceBlockReader(DeviceRuntime runtime, int device, RouteCounters counters, long bounceBytes, long hostLandingRetainBytes)
    {
        this.runtime = requireNonNull(runtime, "runtime is null");
        this.counters = requireNonNull(counters, "counters is null");
        if (device < 0 || device >= runtime.deviceCount()) {
            throw new IllegalArgumentException("No device " + device + " on backend " + runtime.backendName() + " for the reader");
        }
        this.device = device;
        if (bounceBytes <= 0) {
            throw new IllegalArgumentException("bounce buffer size must be positive: " + bounceBytes);
        }
        this.bounceBytes = bounceBytes;
        this.hostLanding = new HostLandingPool(runtime, hostLandingRetainBytes);
    }

    /**
     * Copies the exported block into a new buffer of {@code landing}'s pool (on its GPU, this
     * reader's), counted there until the caller closes it.
     */
    public DeviceBuffer readToDevice(IpcHandle handle, DeviceLanding landing, Route route)
    {
        return readToDeviceOver(handle, landing, route).buffer();
    }

    /** A block read into this reader's GPU and the route that carried it ({@code HOST_STAGED} where the backend refused the peer pair). */
    public record DeviceRead(DeviceBuffer buffer, Route carried) {}

    /** As {@link #readToDevice}, saying which route carried the block. */
    public DeviceRead readToDeviceOver(IpcHandle handle, DeviceLanding landing, Route route)
    {
        requireNonNull(handle, "handle is null");
        requireNonNull(landing, "landing is null");
        if (landing.runtime() != runtime) {
            throw new IllegalArgumentException("The landing pool belongs to another device runtime than this reader's");
        }
        if (landing.device() != device) {
            throw new IllegalArgumentException("The landing pool is on device " + landing.device() + ", this reader's GPU is device " + device);
        }
        checkRoute(route);
        try (DeviceBuffer imported = open(handle)) {
            DeviceBuffer target = landing.allocate(imported.length());
            boolean success = false;
            Route carried = route;
            try {
                if (route != Route.HOST_STAGED) {
                    PeerCopy copy = runtime.copyFromPeer(imported, target, route == Route.NVLINK ? PeerLink.NVLINK : PeerLink.PCIE_P2P);
                    if (copy.refusal().isPresent()) {
                        carried = Route.HOST_STAGED;
                        if (peerFallbacks.getAndIncrement() == 0) {
                            log.warn("Route {} from GPU {} to GPU {} fell back to {}: {}", route, imported.location().device(), device, carried, copy.refusal().get());
                        }
                    }
                }
                if (carried == Route.HOST_STAGED) {
                    try (DeviceStream stream = runtime.newStream(device)) {
                        copyThroughHost(stream, imported, target);
                        stream.synchronize();
                    }
                }
                success = true;
            }
            finally {
                if (!success) {
                    target.close();
                }
            }
            counters.recordBlock(carried, target.length());
            return new DeviceRead(target, carried);
        }
    }

    /** A peer executor left: the IPC mappings of writers that no longer run are closed (the runtime keeps one per writer arena). */
    public int sweepDepartedPeers()
    {
        return runtime.sweepPeerMappings();
    }

    /** Blocks a peer route could not carry because the backend refused peer access (each went HOST_STAGED). */
    public long peerFallbacks()
    {
        return peerFallbacks.get();
    }

    /**
     * Copies the exported block into a pinned host landing buffer ({@link HostLandingPool}) and
     * returns it as an Arrow buffer of {@code allocator}, for a consumer on the CPU; counted as
     * {@code PEER_GPU_D2H}.
     */
    public ArrowBuf landInHost(IpcHandle handle, BufferAllocator allocator)
    {
        requireNonNull(handle, "handle is null");
        ArrowBuf landing = hostLanding.take(allocator, handle.length());
        boolean success = false;
        try {
            readToHost(handle, landing.nioBuffer(0, toIntExact(handle.length())));
            success = true;
            return landing;
        }
        finally {
            if (!success) {
                landing.close();
            }
        }
    }

    public HostLandingPool hostLanding()
    {
        return hostLanding;
    }

    /**
     * Copies the exported block into {@code target}'s remaining bytes, which must be exactly the
     * block's length: one D->H out of the writer's GPU over its PCIe link, on a stream of this
     * reader's GPU (whose context holds the import), counted as {@code PEER_GPU_D2H}.
     */
    public void readToHost(IpcHandle handle, ByteBuffer target)
    {
        requireNonNull(handle, "handle is null");
        requireNonNull(target, "target is null");
        if (target.remaining() != handle.length()) {
            throw new IllegalArgumentException("Host buffer has " + target.remaining() + " bytes left, the block " + handle + " has " + handle.length());
        }
        try (DeviceBuffer imported = open(handle); DeviceStream stream = runtime.newStream(device)) {
            stream.copyToHost(imported, 0, target);
            stream.synchronize();
        }
        counters.recordBlock(Route.PEER_GPU_D2H, handle.length());
    }

    /**
     * Chunks of at most {@code bounceBytes} go through two pinned staging buffers on two streams of
     * this reader's GPU (whose context holds the import): while chunk i goes host -> target GPU on
     * {@code stream}, chunk i+1 comes source GPU -> host on the second stream, so the two copies overlap as a GPU's two copy engines run them. Events order
     * each chunk's upload after its download, and a staging buffer's next download after its last
     * upload. Everything is complete before the staging buffers are freed.
     */
    private void copyThroughHost(DeviceStream stream, DeviceBuffer source, DeviceBuffer target)
    {
        long chunk = Math.min(bounceBytes, source.length());
        DeviceEvent[] uploaded = new DeviceEvent[2];
        try (DeviceBuffer first = runtime.pinnedAllocator().allocate(chunk);
                DeviceBuffer second = runtime.pinnedAllocator().allocate(chunk);
                DeviceStream down = runtime.newStream(device)) {
            DeviceBuffer[] staging = {first, second};
            int index = 0;
            for (long offset = 0; offset < source.length(); offset += chunk, index++) {
                long count = Math.min(chunk, source.length() - offset);
                int slot = index % 2;
                if (uploaded[slot] != null) {
                    // The buffer's previous chunk must be on the target before it is overwritten.
                    down.waitFor(uploaded[slot]);
                    uploaded[slot].close();
                    uploaded[slot] = null;
                }
                down.copy(source, offset, staging[slot], 0, count);
                try (DeviceEvent downloaded = down.recordEvent()) {
                    stream.waitFor(downloaded);
                    stream.copy(staging[slot], 0, target, offset, count);
                }
                uploaded[slot] = stream.recordEvent();
            }
            stream.synchronize();
        }
        finally {
            for (DeviceEvent event : uploaded) {
                if (event != null) {
                    event.close();
                }
            }
        }
    }

    /** The exported block opened on this reader's GPU; a backend that cannot open it is an {@link IpcImportRefused}, distinct from a failed copy. */
    private DeviceBuffer open(IpcHandle handle)
    {
        try {
            return runtime.openIpc(handle, device);
        }
        catch (RuntimeException e) {
            throw new IpcImportRefused(handle, device, e);
        }
    }

    private static void checkRoute(Route route)
    {
        requireNonNull(route, "route is null");
        if (!DEVICE_ROUTES.contains(route)) {
            throw new IllegalArgumentException("A same-node GPU block moves over " + DEVICE_ROUTES + ", not " + route);
        }
    }

    @Override
    public void close()
    {
        hostLanding.close();
    }
}
