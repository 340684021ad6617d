package dev.ferry.gds.io;

import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceStream;
import dev.ferry.device.PinnedHostBuffer;
import dev.ferry.device.memory.BufferAllocator;
import dev.ferry.device.memory.DeviceBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static java.util.Objects.requireNonNull;

/**
 * The BOUNCE route's staging buffers: a small fixed ring, allocated once per file and reused for
 * every read, so the disk fills one slot while another is being copied to the device. Slots are
 * pinned host memory from {@link DeviceRuntime#allocatePinnedHost} (page-locked on cuda, so the
 * host -> device copy is a DMA straight from the slot), owned by a child of the runtime's pinned
 * allocator: the pinned limit bounds them and an unclosed ring shows up in its leak report.
 *
 * <p>When pinned memory cannot be had (limit reached, driver refusal, a backend without a host
 * view), every slot becomes an ordinary direct buffer instead: slower on cuda (a pageable copy),
 * never wrong. That fallback is logged with its reason and counted ({@link #pinnedFallbacks()}),
 * and {@link #reason()} says it for this file. Not thread-safe: the owning data source serialises use.
 */
final class StagingRing
        implements AutoCloseable
{
    private static final Logger log = LoggerFactory.getLogger(StagingRing.class);
    private static final AtomicLong PINNED_FALLBACKS = new AtomicLong();

    private final BufferAllocator allocator;
    private final List<PinnedHostBuffer> pinned;
    private final List<ByteBuffer> hostViews;
    private final String reason;

    private StagingRing(BufferAllocator allocator, List<PinnedHostBuffer> pinned, List<ByteBuffer> hostViews, String reason)
    {
        this.allocator = allocator;
        this.pinned = pinned;
        this.hostViews = hostViews;
        this.reason = reason;
    }

    static StagingRing open(DeviceRuntime runtime, String id, int slots, int slotBytes)
    {
        requireNonNull(runtime, "runtime is null");
        if (slots <= 0 || slotBytes <= 0) {
            throw new IllegalArgumentException("A staging ring needs slots and bytes, got " + slots + " x " + slotBytes);
        }
        BufferAllocator allocator = runtime.pinnedAllocator().newChildAllocator("ferry-gds-bounce-staging " + id, (long) slots * slotBytes);
        List<PinnedHostBuffer> pinned = new ArrayList<>(slots);
        try {
            for (int slot = 0; slot < slots; slot++) {
                pinned.add(runtime.allocatePinnedHost(allocator, slotBytes));
            }
            List<ByteBuffer> views = new ArrayList<>(slots);
            pinned.forEach(buffer -> views.add(buffer.hostBuffer()));
            String detail = pinned.get(0).isPageLocked() ? "page-locked" : "pinned API, not page-locked on this backend: " + pinned.get(0).detail();
            return new StagingRing(allocator, pinned, views, slots + " x " + slotBytes + " bytes of pinned host memory (" + detail + ")");
        }
        catch (RuntimeException e) {
            // DeviceOutOfMemoryException (limit or cudaHostAlloc), or a backend without a host view.
            pinned.forEach(PinnedHostBuffer::close);
            allocator.close();
            PINNED_FALLBACKS.incrementAndGet();
            String reason = slots + " x " + slotBytes + " bytes of ordinary direct memory: pinned staging failed (" + e.getMessage() + ")";
            log.warn("BOUNCE reads of {} stage through {}; host -> device copies from it are pageable copies", id, reason);
            List<ByteBuffer> views = new ArrayList<>(slots);
            for (int slot = 0; slot < slots; slot++) {
                views.add(ByteBuffer.allocateDirect(slotBytes));
            }
            return new StagingRing(null, List.of(), views, reason);
        }
    }

    /** How many staging rings fell back to ordinary memory in this JVM. */
    static long pinnedFallbacks()
    {
        return PINNED_FALLBACKS.get();
    }

    int slots()
    {
        return hostViews.size();
    }

    int slotBytes()
    {
        return hostViews.get(0).capacity();
    }

    boolean isPinned()
    {
        return !pinned.isEmpty();
    }

    /** What the slots are, or why they are not pinned. */
    String reason()
    {
        return reason;
    }

    /** Slot {@code slot}, cleared: the caller fills it and passes the length to {@link #copyToDevice}. */
    ByteBuffer slot(int slot)
    {
        return hostViews.get(slot).clear();
    }

    /**
     * Copies the first {@code length} bytes of {@code slot} into {@code target} and waits until the
     * slot may be refilled. From pinned memory the copy is asynchronous (the DMA engine reads the
     * slot after this call would return), so the stream is synchronised before the slot is reused;
     * the caller runs this on a copy thread, so the disk keeps reading into another slot meanwhile.
     */
    void copyToDevice(DeviceStream stream, int slot, int length, DeviceBuffer target, long targetOffset)
    {
        if (isPinned()) {
            stream.copy(pinned.get(slot).deviceBuffer(), 0, target, targetOffset, length);
        }
        else {
            stream.copyFromHost(hostViews.get(slot).duplicate().clear().limit(length), target, targetOffset);
        }
        stream.synchronize();
    }

    @Override
    public void close()
    {
        RuntimeException failure = null;
        for (PinnedHostBuffer buffer : pinned) {
            try {
                buffer.close();
            }
            catch (RuntimeException e) {
                failure = failure == null ? e : failure;
            }
        }
        if (allocator != null) {
            try {
                allocator.close();
            }
            catch (RuntimeException e) {
                failure = failure == null ? e : failure;
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
