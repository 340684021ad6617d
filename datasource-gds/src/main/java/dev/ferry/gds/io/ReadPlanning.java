package dev.ferry.gds.io;

/**
 * How ranges become requests.
 *
 * @param coalesceGap ranges at most this far apart are read as one request
 * @param maxCoalescedRead a merged request never grows beyond this
 * @param readSlice a request larger than this is split into slices read in parallel
 */
public record ReadPlanning(long coalesceGap, long maxCoalescedRead, long readSlice)
{
    public ReadPlanning
    {
        if (coalesceGap < 0) {
            throw new IllegalArgumentException("coalesceGap is negative: " + coalesceGap);
        }
        if (maxCoalescedRead <= 0 || maxCoalescedRead > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("maxCoalescedRead must be in (0, 2 GiB), got " + maxCoalescedRead);
        }
        if (readSlice <= 0) {
            throw new IllegalArgumentException("readSlice must be positive, got " + readSlice);
        }
    }

    public static ReadPlanning defaults()
    {
        return new ReadPlanning(1L << 20, 64L << 20, 4L << 20);
    }
}
