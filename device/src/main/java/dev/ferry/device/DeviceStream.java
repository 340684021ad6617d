package dev.ferry.device;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.device.spi.BackendStream;

import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicBoolean;

import static java.util.Objects.requireNonNull;

/**
 * An ordered queue of copies on one device (a CUDA stream). Buffer-to-buffer copies are
 * asynchronous until {@link #synchronize()} or an event; copies from and to Java
 * {@link ByteBuffer}s are complete when the call returns, so the Java buffer may be reused.
 *
 * <p>Every range is checked against its buffer before the backend sees it: a bad range is an
 * exception naming the buffer, never a native fault. Not thread-safe, like a CUDA stream.
 *
 * <p>Streams are pooled by the runtime: {@link #close()} gives the stream back for reuse. Copies
 * between a Java buffer and device memory go through the stream's two pinned staging chunks
 * (double-buffered) on backends that stage ({@code cuda}, and {@code simulated}, which follows its
 * byte path); a caller that already holds pinned memory copies from its
 * {@link PinnedHostBuffer#deviceBuffer()} with {@link #copy} and skips the staging pass.
 */
public final class DeviceStream
        implements AutoCloseable
{
    private final DeviceRuntime runtime;
    private final int device;
    private final StreamPool.Pooled pooled;
    private final BackendStream stream;
    private final AtomicBoolean closed = new AtomicBoolean();

    DeviceStream(DeviceRuntime runtime, int device, StreamPool.Pooled pooled)
    {
        this.runtime = requireNonNull(runtime, "runtime is null");
        this.device = device;
        this.pooled = requireNonNull(pooled, "pooled is null");
        this.stream = pooled.stream;
    }

    public int device()
    {
        return device;
    }

    /** Copies {@code length} bytes between two buffers in any direction; a peer copy needs peer access enabled. */
    public void copy(DeviceBuffer source, long sourceOffset, DeviceBuffer target, long targetOffset, long length)
    {
        checkOpen();
        requireNonNull(source, "source is null");
        requireNonNull(target, "target is null");
        source.checkRange("copy from", sourceOffset, length);
        target.checkRange("copy into", targetOffset, length);
        if (length == 0) {
            return;
        }
        checkImportedOnThisDevice(source);
        checkImportedOnThisDevice(target);
        CopyRoute route = CopyRoute.between(source.location(), target.location());
        if (route == CopyRoute.DEVICE_TO_HOST && source.memory().importingDevice().isPresent()) {
            route = CopyRoute.PEER_DEVICE_TO_HOST;
        }
        if (route == CopyRoute.PEER) {
            runtime.checkPeerAccess(source.location().device(), target.location().device(), source, target);
        }
        long sourceStart = source.memoryOffset() + sourceOffset;
        long targetStart = target.memoryOffset() + targetOffset;
        if (source.ledger() == target.ledger() && sourceStart < targetStart + length && targetStart < sourceStart + length) {
            throw new FerryException(ErrorCategory.INTERNAL_ERROR, "Overlapping copy: [" + sourceOffset + ", +" + length + ") of " + source.name()
                    + " overlaps [" + targetOffset + ", +" + length + ") of " + target.name());
        }
        stream.copy(route, source.memory(), sourceStart, target.memory(), targetStart, length);
        runtime.countCopy(route, length);
    }

    /** Copies all of {@code source}'s remaining bytes into {@code target} at {@code targetOffset}; advances {@code source}. */
    public void copyFromHost(ByteBuffer source, DeviceBuffer target, long targetOffset)
    {
        checkOpen();
        requireNonNull(source, "source is null");
        requireNonNull(target, "target is null");
        int length = source.remaining();
        target.checkRange("copy host bytes into", targetOffset, length);
        checkImportedOnThisDevice(target);
        if (length == 0) {
            return;
        }
        CopyRoute route = target.location().isDevice() ? CopyRoute.HOST_TO_DEVICE : CopyRoute.HOST_TO_HOST;
        Optional<PinnedStaging> staging = route == CopyRoute.HOST_TO_DEVICE ? runtime.staging(pooled) : Optional.empty();
        if (staging.isPresent()) {
            staging.get().toDevice(stream, route, source.slice(), target.memory(), target.memoryOffset() + targetOffset);
            runtime.countStaged(length);
        }
        else {
            stream.copyFromHost(source.slice(), target.memory(), target.memoryOffset() + targetOffset);
        }
        source.position(source.position() + length);
        runtime.countCopy(route, length);
    }

    /** Fills {@code target}'s remaining bytes from {@code source} at {@code sourceOffset}; advances {@code target}. */
    public void copyToHost(DeviceBuffer source, long sourceOffset, ByteBuffer target)
    {
        checkOpen();
        requireNonNull(source, "source is null");
        requireNonNull(target, "target is null");
        if (target.isReadOnly()) {
            throw new IllegalArgumentException("Cannot copy " + source.name() + " into a read-only host buffer");
        }
        int length = target.remaining();
        source.checkRange("copy to host", sourceOffset, length);
        checkImportedOnThisDevice(source);
        if (length == 0) {
            return;
        }
        CopyRoute route = source.location().isDevice() ? CopyRoute.DEVICE_TO_HOST : CopyRoute.HOST_TO_HOST;
        if (route == CopyRoute.DEVICE_TO_HOST && source.memory().importingDevice().isPresent()) {
            // Another process's GPU memory: the exporter GPU's D->H over its own PCIe link.
            route = CopyRoute.PEER_DEVICE_TO_HOST;
        }
        Optional<PinnedStaging> staging = route != CopyRoute.HOST_TO_HOST ? runtime.staging(pooled) : Optional.empty();
        if (staging.isPresent()) {
            staging.get().toHost(stream, route, source.memory(), source.memoryOffset() + sourceOffset, target.slice());
            runtime.countStaged(length);
        }
        else {
            stream.copyToHost(source.memory(), source.memoryOffset() + sourceOffset, target.slice());
        }
        target.position(target.position() + length);
        runtime.countCopy(route, length);
    }

    public DeviceEvent recordEvent()
    {
        checkOpen();
        return new DeviceEvent(stream.record());
    }

    public void waitFor(DeviceEvent event)
    {
        checkOpen();
        stream.waitFor(event.backendEvent());
    }

    public void synchronize()
    {
        checkOpen();
        stream.synchronize();
    }

    /** An IPC import is a mapping in its importing device's context: only that device's streams may copy it. */
    private void checkImportedOnThisDevice(DeviceBuffer buffer)
    {
        OptionalInt importing = buffer.memory().importingDevice();
        if (importing.isPresent() && importing.getAsInt() != device) {
            throw new FerryException(ErrorCategory.INTERNAL_ERROR, buffer.name() + " was imported on device " + importing.getAsInt()
                    + ", whose context holds the mapping; copy it on a stream of device " + importing.getAsInt() + ", not of device " + device);
        }
    }

    private void checkOpen()
    {
        if (closed.get()) {
            throw new IllegalStateException("Use after close: stream on device " + device + " was already closed");
        }
    }

    /** Waits for queued work, then gives the stream back to the runtime's pool (destroyed if the wait failed). Idempotent. */
    @Override
    public void close()
    {
        if (closed.compareAndSet(false, true)) {
            runtime.releaseStream(pooled);
        }
    }
}
