package dev.ferry.gds.io;

import static java.util.Objects.requireNonNull;

/**
 * Bytes {@code [position, position + length)} of one file.
 *
 * @param position the first byte
 * @param length how many bytes; at most {@link Integer#MAX_VALUE} since one range lands in one buffer
 */
public record DiskRange(long position, int length)
{
    public DiskRange
    {
        if (position < 0) {
            throw new IllegalArgumentException("position is negative: " + position);
        }
        if (length < 0) {
            throw new IllegalArgumentException("length is negative: " + length);
        }
    }

    public long end()
    {
        return position + length;
    }

    public boolean contains(DiskRange other)
    {
        requireNonNull(other, "other is null");
        return position <= other.position && other.end() <= end();
    }

    /** The smallest range covering this and {@code other}. */
    public DiskRange span(DiskRange other)
    {
        long start = Math.min(position, other.position);
        long stop = Math.max(end(), other.end());
        return new DiskRange(start, Math.toIntExact(stop - start));
    }
}
