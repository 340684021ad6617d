package dev.ferry.shuffle.transport.ipc;

import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.PinnedHostBuffer;
import dev.ferry.device.memory.DeviceOutOfMemoryException;
import dev.ferry.shuffle.transport.IdleLandingBuffers;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.ForeignAllocation;
import org.apache.arrow.memory.util.MemoryUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static java.util.Objects.requireNonNull;

/**
 * Pinned host buffers that copies of fetched blocks out of GPU memory land in, kept for reuse.
 *
 * <p>Why a pool: a device-to-host copy into pageable memory runs at a fraction of the pinned rate
 * (docs/gpu-check-results.md: 16.5 against 55 GB/s on an H200) and {@code cudaHostAlloc} per block
 * costs milliseconds; and memory fresh from the OS pays a page fault and a zeroed page per 4 KiB
 * before the copy starts, which on the benchmark machine costs more than the copy itself. A landing
 * buffer is handed out as an Arrow buffer accounted in the reader's allocator (so the bounds on
 * bytes in flight see it); releasing that Arrow buffer returns the memory here.
 *
 * <p>Sizes are rounded up to a power of two (at least 64 KiB) so a returned buffer fits later blocks
 * of similar size. At most {@code retainBytes} are kept idle; a buffer returned beyond that is freed.
 * When the pinned allocator refuses (its limit, {@code spark.ferry.device.pinnedLimit}), the idle
 * buffers are freed and the allocation retried once; if it still fails the block lands in ordinary
 * memory of the reader's allocator instead, which is counted and logged once. Thread-safe.
 */
public final class HostLandingPool
        implements AutoCloseable
{
    private static final Logger log = LoggerFactory.getLogger(HostLandingPool.class);

    private final DeviceRuntime runtime;
    private final AtomicLong reused = new AtomicLong();
    private final AtomicLong allocated = new AtomicLong();
    private final AtomicLong unpinnedFallbacks = new AtomicLong();
    private final AtomicBoolean fallbackLogged = new AtomicBoolean();
    // Guarded by this.
    private final IdleLandingBuffers<PinnedHostBuffer> idle;
    private boolean closed;

    public HostLandingPool(DeviceRuntime runtime, long retainBytes)
    {
        this.runtime = requireNonNull(runtime, "runtime is null");
        this.idle = new IdleLandingBuffers<>(retainBytes);
    }

    /** An Arrow buffer of exactly {@code length} bytes over pinned host memory, accounted in {@code allocator} until released. */
    public ArrowBuf take(BufferAllocator allocator, long length)
    {
        requireNonNull(allocator, "allocator is null");
        if (length <= 0) {
            throw new IllegalArgumentException("landing length must be positive: " + length);
        }
        PinnedHostBuffer pinned = idleBuffer(IdleLandingBuffers.sizeClass(length));
        if (pinned == null) {
            pinned = allocatePinned(IdleLandingBuffers.sizeClass(length));
            if (pinned == null) {
                return allocator.buffer(length);
            }
        }
        PinnedHostBuffer landing = pinned;
        boolean wrapped = false;
        try {
            long address = MemoryUtil.getByteBufferAddress(landing.hostBuffer());
            AtomicBoolean returned = new AtomicBoolean();
            ArrowBuf buffer = allocator.wrapForeignAllocation(new ForeignAllocation(length, address)
            {
                @Override
                protected void release0()
                {
                    if (returned.compareAndSet(false, true)) {
                        giveBack(landing);
                    }
                }
            });
            wrapped = true;
            return buffer;
        }
        finally {
            if (!wrapped) {
                giveBack(landing);
            }
        }
    }

    private synchronized PinnedHostBuffer idleBuffer(long sizeClass)
    {
        if (closed) {
            throw new IllegalStateException("The host landing pool is closed");
        }
        PinnedHostBuffer buffer = idle.take(sizeClass);
        if (buffer != null) {
            reused.incrementAndGet();
        }
        return buffer;
    }

    private PinnedHostBuffer allocatePinned(long sizeClass)
    {
        try {
            return countAllocated(runtime.allocatePinnedHost(sizeClass));
        }
        catch (DeviceOutOfMemoryException first) {
            // Idle landing buffers of other sizes may be what holds the pinned limit; give them back and try once more.
            freeIdle();
            try {
                return countAllocated(runtime.allocatePinnedHost(sizeClass));
            }
            catch (DeviceOutOfMemoryException second) {
                unpinnedFallbacks.incrementAndGet();
                if (fallbackLogged.compareAndSet(false, true)) {
                    log.warn("Fetched GPU blocks land in pageable host memory: no pinned landing buffer of {} bytes ({}); further such fallbacks are counted, not logged",
                            sizeClass, second.getMessage());
                }
                return null;
            }
        }
    }

    private PinnedHostBuffer countAllocated(PinnedHostBuffer buffer)
    {
        allocated.incrementAndGet();
        return buffer;
    }

    private void giveBack(PinnedHostBuffer buffer)
    {
        synchronized (this) {
            if (!closed && idle.keep(buffer, buffer.length())) {
                return;
            }
        }
        buffer.close();
    }

    private void freeIdle()
    {
        List<PinnedHostBuffer> freed;
        synchronized (this) {
            freed = idle.drain();
        }
        freed.forEach(PinnedHostBuffer::close);
    }

    /** Landings served from an idle buffer. */
    public long reused()
    {
        return reused.get();
    }

    /** Pinned buffers allocated because none of the size was idle. */
    public long allocated()
    {
        return allocated.get();
    }

    /** Landings in ordinary memory because the pinned allocator refused. */
    public long unpinnedFallbacks()
    {
        return unpinnedFallbacks.get();
    }

    public synchronized long idleBytes()
    {
        return idle.idleBytes();
    }

    /** Frees the idle buffers; buffers still lent out are freed when their Arrow buffers are released. */
    @Override
    public void close()
    {
        synchronized (this) {
            closed = true;
        }
        freeIdle();
    }
}
