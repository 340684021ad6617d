package dev.ferry.gds.io;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * Arrays for decompressed data pages, lent by the codecs and given back by the decoder once it has
 * moved past a page, so one task decodes its pages in a handful of arrays instead of allocating one
 * per page. Pages are about a megabyte: allocated fresh, each is a zeroed humongous object for G1,
 * and a scan's worth of them kept the collector's concurrent threads busy for a fifth of the
 * process's CPU time.
 *
 * <p>Ownership is explicit: {@link #take} lends an array; only the consumer that knows it no longer
 * reads a page calls {@link #giveBack}, and only arrays this pool lent (and that are still out) are
 * taken back. A page nobody gives back (dictionary pages, pages parquet-mr's own readers hold) is
 * simply left to the garbage collector, so forgetting to give back costs memory, never correctness.
 * One pool belongs to one task's reader; its methods are synchronized only so a misuse from a second
 * thread cannot corrupt it.
 */
public final class PageArrays
{
    // Rounding sizes up lets pages of nearly equal size share arrays.
    private static final int GRANULE = 64 * 1024;
    private static final int MAX_IDLE = 8;

    private final List<byte[]> idle = new ArrayList<>();
    // Weak, so arrays never given back stay collectable; arrays compare by identity, so this is an identity set.
    private final Set<byte[]> lent = Collections.newSetFromMap(new WeakHashMap<>());
    private long reused;
    private long allocated;

    /** An array of at least {@code size} bytes, possibly holding an earlier page's bytes past {@code size}. */
    public synchronized byte[] take(int size)
    {
        if (size < 0) {
            throw new IllegalArgumentException("size is negative: " + size);
        }
        byte[] best = null;
        int bestIndex = -1;
        for (int index = 0; index < idle.size(); index++) {
            byte[] candidate = idle.get(index);
            if (candidate.length >= size && (best == null || candidate.length < best.length)) {
                best = candidate;
                bestIndex = index;
            }
        }
        if (best != null) {
            idle.remove(bestIndex);
            reused++;
        }
        else {
            long rounded = ((long) size + GRANULE - 1) / GRANULE * GRANULE;
            best = new byte[(int) Math.min(rounded, Integer.MAX_VALUE - 8L)];
            allocated++;
        }
        lent.add(best);
        return best;
    }

    /** Gives back {@code array} if this pool lent it and it is still out; any other array is ignored. */
    public synchronized void giveBack(byte[] array)
    {
        if (array == null || !lent.remove(array)) {
            return;
        }
        if (idle.size() < MAX_IDLE) {
            idle.add(array);
        }
        else {
            // Keep the larger arrays: a small one cannot serve a large page, a large one serves both.
            int smallest = 0;
            for (int index = 1; index < idle.size(); index++) {
                if (idle.get(index).length < idle.get(smallest).length) {
                    smallest = index;
                }
            }
            if (idle.get(smallest).length < array.length) {
                idle.set(smallest, array);
            }
        }
    }

    /** Arrays lent from the idle list so far. */
    public synchronized long reused()
    {
        return reused;
    }

    /** Arrays allocated so far. */
    public synchronized long allocated()
    {
        return allocated;
    }
}
