package dev.ferry.device.host;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.device.memory.MemoryLocation;
import dev.ferry.device.memory.NativeMemory;

import java.nio.ByteBuffer;

import static java.lang.Math.toIntExact;
import static java.util.Objects.requireNonNull;

/**
 * Memory the JVM can address as a {@link ByteBuffer}: host buffers, simulated device arenas and
 * mapped IPC imports. Index 0 of {@link #buffer()} is byte 0 of the memory. Only absolute
 * ByteBuffer operations are used on it, so one instance is safe to share between threads.
 */
public abstract class ByteBufferMemory
        extends NativeMemory
{
    private final ByteBuffer buffer;

    protected ByteBufferMemory(MemoryLocation location, ByteBuffer buffer)
    {
        super(location, requireNonNull(buffer, "buffer is null").capacity());
        this.buffer = buffer;
    }

    public final ByteBuffer buffer()
    {
        return buffer;
    }

    /** Bytes {@code [offset, +length)} as a buffer of their own: index 0 is byte {@code offset}. */
    public final ByteBuffer window(long offset, long length)
    {
        return buffer.slice(toIntExact(offset), toIntExact(length));
    }

    /** {@code memory} as a ByteBufferMemory; anything else came from another backend, a bug. */
    public static ByteBufferMemory of(NativeMemory memory)
    {
        if (!(memory instanceof ByteBufferMemory)) {
            throw new FerryException(ErrorCategory.INTERNAL_ERROR, "Memory " + memory.describe() + " does not belong to this backend");
        }
        return (ByteBufferMemory) memory;
    }
}
