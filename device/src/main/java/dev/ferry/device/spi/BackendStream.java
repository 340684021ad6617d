package dev.ferry.device.spi;

import dev.ferry.device.CopyRoute;
import dev.ferry.device.memory.NativeMemory;

import java.nio.ByteBuffer;

/**
 * A backend's ordered queue of copies (cudaStream_t). Every argument was checked by the caller
 * ({@code DeviceStream}): memories are open, ranges lie inside them, and peer access was enabled,
 * so implementations may go straight to native code.
 */
public interface BackendStream
        extends AutoCloseable
{
    /** Enqueues a copy of {@code length} bytes; completes by {@link #synchronize()}. */
    void copy(CopyRoute route, NativeMemory source, long sourceOffset, NativeMemory target, long targetOffset, long length);

    /** Copies {@code source}'s remaining bytes; complete when this returns (the host buffer is free again). */
    void copyFromHost(ByteBuffer source, NativeMemory target, long targetOffset);

    /** Fills {@code target}'s remaining bytes; complete when this returns. */
    void copyToHost(NativeMemory source, long sourceOffset, ByteBuffer target);

    BackendEvent record();

    /** Makes later work on this stream wait for {@code event}. */
    void waitFor(BackendEvent event);

    void synchronize();

    @Override
    void close();
}
