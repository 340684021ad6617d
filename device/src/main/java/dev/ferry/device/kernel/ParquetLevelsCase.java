package dev.ferry.device.kernel;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static java.util.Objects.requireNonNull;

/**
 * One generated input for the levels kernels: definition-level runs covering {@code valueCount}
 * values in a named null pattern. Shared by {@link KernelCheck} on a GPU and the host emulation test.
 */
public record ParquetLevelsCase(String pattern, int valueCount, int[] runLengths, byte[] runLevels)
{
    public static final int[] VALUE_COUNTS = {1, 7, 8, 9, 1000, 100_003};
    public static final String[] PATTERNS = {"all-null", "no-null", "runs", "alternating"};

    public ParquetLevelsCase
    {
        requireNonNull(pattern, "pattern is null");
        requireNonNull(runLengths, "runLengths is null");
        requireNonNull(runLevels, "runLevels is null");
    }

    /** Every pattern at every value count; {@code random} fills the "runs" pattern and nothing else. */
    public static List<ParquetLevelsCase> all(Random random)
    {
        List<ParquetLevelsCase> cases = new ArrayList<>();
        for (int valueCount : VALUE_COUNTS) {
            for (String pattern : PATTERNS) {
                cases.add(generate(pattern, valueCount, random));
            }
        }
        return cases;
    }

    static ParquetLevelsCase generate(String pattern, int valueCount, Random random)
    {
        List<Integer> lengths = new ArrayList<>();
        List<Integer> levels = new ArrayList<>();
        switch (pattern) {
            case "all-null" -> {
                lengths.add(valueCount);
                levels.add(0);
            }
            case "no-null" -> {
                lengths.add(valueCount);
                levels.add(1);
            }
            case "alternating" -> {
                for (int i = 0; i < valueCount; i++) {
                    lengths.add(1);
                    levels.add(i % 2);
                }
            }
            case "runs" -> {
                int left = valueCount;
                int level = 1;
                while (left > 0) {
                    // Includes zero-length runs, which the kernel must step over.
                    int length = Math.min(left, random.nextInt(20));
                    lengths.add(length);
                    levels.add(level);
                    left -= length;
                    level = random.nextInt(2);
                }
            }
            default -> throw new IllegalArgumentException("unknown pattern " + pattern);
        }
        int[] runLengths = new int[lengths.size()];
        byte[] runLevels = new byte[levels.size()];
        for (int i = 0; i < runLengths.length; i++) {
            runLengths[i] = lengths.get(i);
            runLevels[i] = (byte) (int) levels.get(i);
        }
        return new ParquetLevelsCase(pattern, valueCount, runLengths, runLevels);
    }

    public byte[] expectedBitmap()
    {
        return ParquetLevelsReference.validity(runLengths, runLevels);
    }

    @Override
    public String toString()
    {
        return pattern + " n=" + valueCount;
    }
}
