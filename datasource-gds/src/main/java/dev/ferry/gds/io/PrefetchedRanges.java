package dev.ferry.gds.io;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Ranges already read for the decoder, looked up by file position. Not thread-safe: one reader
 * task owns it.
 */
public final class PrefetchedRanges
{
    private final List<Entry> entries = new ArrayList<>();

    public void add(DiskRange range, ByteBuffer bytes)
    {
        if (bytes.remaining() != range.length()) {
            throw new IllegalArgumentException("Buffer of " + bytes.remaining() + " bytes for " + range);
        }
        entries.add(new Entry(range, bytes));
    }

    /** A view of {@code length} bytes at {@code position} if one prefetched range holds them all. */
    public Optional<ByteBuffer> find(long position, int length)
    {
        DiskRange wanted = new DiskRange(position, length);
        for (Entry entry : entries) {
            if (entry.range().contains(wanted)) {
                ByteBuffer view = entry.bytes().duplicate();
                int offset = (int) (position - entry.range().position());
                view.position(view.position() + offset).limit(view.position() + length);
                return Optional.of(view);
            }
        }
        return assemble(wanted);
    }

    // parquet-mr reads consecutive column chunks as one range, which may span several prefetched
    // chunks; adjacent entries that cover it are copied together.
    private Optional<ByteBuffer> assemble(DiskRange wanted)
    {
        List<Entry> overlapping = new ArrayList<>();
        for (Entry entry : entries) {
            if (entry.range().position() < wanted.end() && entry.range().end() > wanted.position()) {
                overlapping.add(entry);
            }
        }
        overlapping.sort(Comparator.comparingLong(entry -> entry.range().position()));
        long covered = wanted.position();
        for (Entry entry : overlapping) {
            if (entry.range().position() > covered) {
                return Optional.empty();
            }
            covered = Math.max(covered, entry.range().end());
        }
        if (covered < wanted.end()) {
            return Optional.empty();
        }
        ByteBuffer assembled = ByteBuffer.allocate(wanted.length());
        for (Entry entry : overlapping) {
            long from = Math.max(wanted.position() + assembled.position(), entry.range().position());
            long to = Math.min(wanted.end(), entry.range().end());
            if (from >= to) {
                continue;
            }
            ByteBuffer view = entry.bytes().duplicate();
            int offset = (int) (from - entry.range().position());
            view.position(view.position() + offset).limit(view.position() + (int) (to - from));
            assembled.put(view);
        }
        assembled.flip();
        return Optional.of(assembled);
    }

    public void clear()
    {
        entries.clear();
    }

    private record Entry(DiskRange range, ByteBuffer bytes) {}
}
