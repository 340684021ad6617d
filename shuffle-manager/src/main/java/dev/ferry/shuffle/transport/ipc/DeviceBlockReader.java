package dev.ferry.shuffle.transport.ipc;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.device.DeviceEvent;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceStream;
import dev.ferry.device.IpcHandle;
import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.topology.route.Route;
import dev.ferry.shuffle.transport.metrics.RouteCounters;

import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.Set;

import static java.lang.Math.toIntExact;
import static java.util.Objects.requireNonNull;

/**
 * The reader's half of a same-node GPU block transfer: opens the writer's exported block
 * ({@link IpcHandle}, from {@link DeviceRuntime#exportIpc}) and copies it
 * <ul>
 * <li>over {@code NVLINK} or {@code PCIE_P2P}: peer-to-peer into a buffer on the reader's GPU
 *     (peer access is enabled on first use; the runtime refuses it where the hardware has no path);</li>
 * <li>over {@code HOST_STAGED}: in chunks of at most {@code bounceBytes} through two pinned host
 *     staging buffers, the download of one chunk overlapping the upload of the previous one, for
 *     GPU pairs without usable peer access;</li>
 * <li>to a host buffer when the reader's consumer runs on the CPU (counted on the route given).</li>
 * </ul>
 * The imported mapping is closed after the copy, which lets the writer free the block once every
 * reader is done. Every block is counted on its route. Thread-safe if the runtime is.
 */
public final class DeviceBlockReader
        implements AutoCloseable
{
    private static final Set<Route> DEVICE_ROUTES = EnumSet.of(Route.NVLINK, Route.PCIE_P2P, Route.HOST_STAGED);

    private final DeviceRuntime runtime;
    private final RouteCounters counters;
    private final long bounceBytes;
    private final HostLandingPool hostLanding;

    /** {@code hostLandingRetainBytes}: idle pinned landing buffers kept for blocks wanted in host memory ({@link HostLandingPool}). */
    public DeviceBlockReader(DeviceRuntime runtime, RouteCounters counters, long bounceBytes, long hostLandingRetainBytes)
    {
        this.runtime = requireNonNull(runtime, "runtime is null");
        this.counters = requireNonNull(counters, "counters is null");
        if (bounceBytes <= 0) {
            throw new IllegalArgumentException("bounce buffer size must be positive: " + bounceBytes);
        }
        this.bounceBytes = bounceBytes;
        this.hostLanding = new HostLandingPool(runtime, hostLandingRetainBytes);
    }

    /**
     * Copies the exported block into a new buffer of {@code landing}'s pool (on its GPU), counted
     * there until the caller closes it.
     */
    public DeviceBuffer readToDevice(IpcHandle handle, DeviceLanding landing, Route route)
    {
        requireNonNull(handle, "handle is null");
        requireNonNull(landing, "landing is null");
        if (landing.runtime() != runtime) {
            throw new IllegalArgumentException("The landing pool belongs to another device runtime than this reader's");
        }
        checkRoute(route);
        int targetDevice = landing.device();
        try (DeviceBuffer imported = runtime.openIpc(handle)) {
            int sourceDevice = imported.location().device();
            DeviceBuffer target = landing.allocate(imported.length());
            boolean success = false;
            try (DeviceStream stream = runtime.newStream(targetDevice)) {
                if (route == Route.HOST_STAGED) {
                    copyThroughHost(stream, imported, target);
                }
                else {
                    if (sourceDevice != targetDevice) {
                        enablePeerAccess(targetDevice, sourceDevice, route);
                    }
                    stream.copy(imported, 0, target, 0, imported.length());
                }
                stream.synchronize();
                success = true;
            }
            finally {
                if (!success) {
                    target.close();
                }
            }
            counters.recordBlock(route, target.length());
            return target;
        }
    }

    /**
     * Copies the exported block into a pinned host landing buffer ({@link HostLandingPool}) and
     * returns it as an Arrow buffer of {@code allocator}, for a consumer on the CPU.
     */
    public ArrowBuf landInHost(IpcHandle handle, BufferAllocator allocator, Route route)
    {
        requireNonNull(handle, "handle is null");
        ArrowBuf landing = hostLanding.take(allocator, handle.length());
        boolean success = false;
        try {
            readToHost(handle, landing.nioBuffer(0, toIntExact(handle.length())), route);
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

    /** Copies the exported block into {@code target}'s remaining bytes, which must be exactly the block's length. */
    public void readToHost(IpcHandle handle, ByteBuffer target, Route route)
    {
        requireNonNull(handle, "handle is null");
        requireNonNull(target, "target is null");
        checkRoute(route);
        if (target.remaining() != handle.length()) {
            throw new IllegalArgumentException("Host buffer has " + target.remaining() + " bytes left, the block " + handle + " has " + handle.length());
        }
        try (DeviceBuffer imported = runtime.openIpc(handle); DeviceStream stream = runtime.newStream(imported.location().device())) {
            stream.copyToHost(imported, 0, target);
            stream.synchronize();
        }
        counters.recordBlock(route, handle.length());
    }

    /**
     * Chunks of at most {@code bounceBytes} go through two pinned staging buffers on two streams:
     * while chunk i goes host -> target GPU on {@code stream}, chunk i+1 comes source GPU -> host on
     * a second stream, so the two copies overlap as a GPU's two copy engines run them. Events order
     * each chunk's upload after its download, and a staging buffer's next download after its last
     * upload. Everything is complete before the staging buffers are freed.
     */
    private void copyThroughHost(DeviceStream stream, DeviceBuffer source, DeviceBuffer target)
    {
        long chunk = Math.min(bounceBytes, source.length());
        DeviceEvent[] uploaded = new DeviceEvent[2];
        try (DeviceBuffer first = runtime.pinnedAllocator().allocate(chunk);
                DeviceBuffer second = runtime.pinnedAllocator().allocate(chunk);
                DeviceStream down = runtime.newStream(source.location().device())) {
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

    private void enablePeerAccess(int targetDevice, int sourceDevice, Route route)
    {
        if (!runtime.canAccessPeer(targetDevice, sourceDevice)) {
            throw new FerryException(ErrorCategory.EXTERNAL, "Route " + route + " needs peer access from GPU " + targetDevice + " to GPU " + sourceDevice
                    + ", which backend " + runtime.backendName() + " refuses; the route policy should have chosen HOST_STAGED");
        }
        runtime.enablePeerAccess(targetDevice, sourceDevice);
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
