package dev.ferry.examples.bench;

import java.util.Arrays;

/** The median of a benchmark's timed runs (the upper middle one for an even count), as every benchmark here reports it. */
public final class Medians
{
    private Medians() {}

    public static long of(long[] values)
    {
        if (values.length == 0) {
            throw new IllegalArgumentException("no timed runs");
        }
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
