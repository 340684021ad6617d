package dev.ferry.shuffle.transport.shm;

import java.nio.MappedByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.ferry.device.ipc.Unmapper;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.ForeignAllocation;
import org.apache.arrow.memory.util.MemoryUtil;

import static java.util.Objects.requireNonNull;

/**
 * A file mapping handed out as an Arrow buffer. Arrow's reference count decides when the mapping
 * is no longer in use: the release of the last reference unmaps it at once (not whenever the
 * garbage collector gets to the {@link MappedByteBuffer}) and then runs {@code afterUnmap}, both
 * exactly once. The mapped bytes are accounted in the allocator while they are mapped, so the
 * bounds on memory and bytes in flight see them like any other buffer.
 */
final class MappedMemory
{
    private MappedMemory() {}

    static ArrowBuf wrap(BufferAllocator allocator, MappedByteBuffer mapping, Runnable afterUnmap)
    {
        requireNonNull(allocator, "allocator is null");
        requireNonNull(afterUnmap, "afterUnmap is null");
        if (mapping.capacity() == 0) {
            throw new IllegalArgumentException("Cannot wrap an empty mapping");
        }
        AtomicBoolean released = new AtomicBoolean();
        return allocator.wrapForeignAllocation(new ForeignAllocation(mapping.capacity(), MemoryUtil.getByteBufferAddress(mapping))
        {
            @Override
            protected void release0()
            {
                if (released.compareAndSet(false, true)) {
                    unmap(mapping);
                    afterUnmap.run();
                }
            }
        });
    }

    /** Unmaps now; the buffer must not be used afterwards (every user went through the Arrow reference count). */
    static void unmap(MappedByteBuffer mapping)
    {
        Unmapper.unmap(mapping);
    }
}
