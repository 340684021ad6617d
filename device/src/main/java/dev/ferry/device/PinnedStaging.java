package dev.ferry.device;

import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.device.memory.NativeMemory;
import dev.ferry.device.spi.BackendEvent;
import dev.ferry.device.spi.BackendStream;

import java.nio.ByteBuffer;

import static java.util.Objects.requireNonNull;

/**
 * Two pinned host chunks a pooled stream copies pageable JVM buffers through, double-buffered:
 * the JVM fills (or drains) one chunk while the DMA engine moves the other. A DMA engine reads
 * only page-locked memory, so a copy straight from a pageable buffer makes the driver stage it
 * itself through a small internal buffer, synchronously (8.4 GB/s H->D and 16.5 GB/s D->H
 * measured on an H200, against 55 GB/s pinned). Owned by one stream, used under its (single
 * thread) discipline; freed with the stream.
 */
final class PinnedStaging
        implements AutoCloseable
{
    private final PinnedHostBuffer[] chunks;
    private final BackendEvent[] inFlight = new BackendEvent[2];

    PinnedStaging(PinnedHostBuffer first, PinnedHostBuffer second)
    {
        this.chunks = new PinnedHostBuffer[] {requireNonNull(first, "first is null"), requireNonNull(second, "second is null")};
        if (first.length() != second.length()) {
            throw new IllegalArgumentException("Staging chunks differ in size: " + first.length() + " and " + second.length());
        }
    }

    long chunkSize()
    {
        return chunks[0].length();
    }

    /** Copies {@code source}'s remaining bytes to {@code target} at {@code targetOffset}; complete on return. */
    void toDevice(BackendStream stream, CopyRoute route, ByteBuffer source, NativeMemory target, long targetOffset)
    {
        int chunk = (int) chunkSize();
        int total = source.remaining();
        int done = 0;
        int slot = 0;
        try {
            while (done < total) {
                int length = Math.min(chunk, total - done);
                awaitSlot(slot);
                ByteBuffer host = chunks[slot].hostBuffer();
                host.put(0, source, source.position() + done, length);
                DeviceBuffer staged = chunks[slot].deviceBuffer();
                stream.copy(route, staged.memory(), staged.memoryOffset(), target, targetOffset + done, length);
                inFlight[slot] = stream.record();
                done += length;
                slot ^= 1;
            }
            stream.synchronize();
        }
        finally {
            releaseEvents();
        }
    }

    /** Fills {@code target}'s remaining bytes from {@code source} at {@code sourceOffset}; complete on return. */
    void toHost(BackendStream stream, CopyRoute route, NativeMemory source, long sourceOffset, ByteBuffer target)
    {
        int chunk = (int) chunkSize();
        int total = target.remaining();
        int base = target.position();
        int issued = 0;
        int[] start = new int[2];
        int[] length = new int[2];
        int waiting = -1;
        try {
            while (issued < total || waiting >= 0) {
                int next = -1;
                if (issued < total) {
                    next = waiting < 0 ? 0 : waiting ^ 1;
                    int bytes = Math.min(chunk, total - issued);
                    DeviceBuffer staged = chunks[next].deviceBuffer();
                    stream.copy(route, source, sourceOffset + issued, staged.memory(), staged.memoryOffset(), bytes);
                    inFlight[next] = stream.record();
                    start[next] = issued;
                    length[next] = bytes;
                    issued += bytes;
                }
                if (waiting >= 0) {
                    awaitSlot(waiting);
                    target.put(base + start[waiting], chunks[waiting].hostBuffer(), 0, length[waiting]);
                }
                waiting = next;
            }
        }
        finally {
            releaseEvents();
        }
    }

    private void awaitSlot(int slot)
    {
        BackendEvent event = inFlight[slot];
        if (event != null) {
            inFlight[slot] = null;
            try {
                event.synchronize();
            }
            finally {
                event.close();
            }
        }
    }

    private void releaseEvents()
    {
        for (int slot = 0; slot < inFlight.length; slot++) {
            if (inFlight[slot] != null) {
                inFlight[slot].close();
                inFlight[slot] = null;
            }
        }
    }

    @Override
    public void close()
    {
        releaseEvents();
        try {
            chunks[0].close();
        }
        finally {
            chunks[1].close();
        }
    }
}
