package dev.ferry.device.kernel;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;

import static java.util.Objects.requireNonNull;

/**
 * What {@code parquet_levels.cu} computes, in plain Java: the expected bytes that
 * {@link KernelCheck} compares the device's output with, byte for byte.
 */
public final class ParquetLevelsReference
{
    public static final int[] WIDTHS = {1, 2, 4, 8, 16};

    private ParquetLevelsReference() {}

    /** The exclusive prefix sum of run lengths: where each run starts. Rejects negative lengths and overflow. */
    public static int[] runStarts(int[] runLengths)
    {
        int[] starts = new int[runLengths.length];
        long next = 0;
        for (int run = 0; run < runLengths.length; run++) {
            if (runLengths[run] < 0) {
                throw new FerryException(ErrorCategory.INTERNAL_ERROR, "definition-level run " + run + " has negative length " + runLengths[run]);
            }
            starts[run] = (int) next;
            next += runLengths[run];
            if (next > Integer.MAX_VALUE) {
                throw new FerryException(ErrorCategory.INTERNAL_ERROR, "definition-level runs cover more than " + Integer.MAX_VALUE + " values");
            }
        }
        return starts;
    }

    public static int valueCount(int[] runLengths)
    {
        int[] starts = runStarts(runLengths);
        return runLengths.length == 0 ? 0 : starts[starts.length - 1] + runLengths[runLengths.length - 1];
    }

    /** The Arrow validity bitmap (LSB first, 1 = valid, trailing bits 0) of runs with levels 0 or 1. */
    public static byte[] validity(int[] runLengths, byte[] runLevels)
    {
        requireNonNull(runLengths, "runLengths is null");
        requireNonNull(runLevels, "runLevels is null");
        if (runLengths.length != runLevels.length) {
            throw new FerryException(ErrorCategory.INTERNAL_ERROR, runLengths.length + " run lengths but " + runLevels.length + " run levels");
        }
        int valueCount = valueCount(runLengths);
        byte[] bitmap = new byte[(valueCount + 7) / 8];
        int value = 0;
        for (int run = 0; run < runLengths.length; run++) {
            if (runLevels[run] != 0 && runLevels[run] != 1) {
                throw new FerryException(ErrorCategory.INTERNAL_ERROR, "definition-level run " + run + " has level " + runLevels[run] + " above the maximum 1");
            }
            for (int i = 0; i < runLengths[run]; i++, value++) {
                if (runLevels[run] == 1) {
                    bitmap[value / 8] |= (byte) (1 << (value % 8));
                }
            }
        }
        return bitmap;
    }

    public static boolean isValid(byte[] bitmap, int index)
    {
        return ((bitmap[index / 8] >> (index % 8)) & 1) != 0;
    }

    /** For each value, how many valid values precede it: the dense slot a valid value reads. */
    public static int[] positions(byte[] bitmap, int valueCount)
    {
        int[] positions = new int[valueCount];
        int valid = 0;
        for (int i = 0; i < valueCount; i++) {
            positions[i] = valid;
            if (isValid(bitmap, i)) {
                valid++;
            }
        }
        return positions;
    }

    /** Dense values of {@code width} bytes placed at their spaced slots; null slots are zero bytes. */
    public static byte[] spaced(byte[] dense, byte[] bitmap, int valueCount, int width)
    {
        checkWidth(width);
        byte[] spaced = new byte[Math.multiplyExact(valueCount, width)];
        int slot = 0;
        for (int i = 0; i < valueCount; i++) {
            if (isValid(bitmap, i)) {
                if ((long) (slot + 1) * width > dense.length) {
                    throw new FerryException(ErrorCategory.INTERNAL_ERROR, "dense buffer of " + dense.length + " bytes holds fewer than " + (slot + 1) + " values of width " + width);
                }
                System.arraycopy(dense, slot * width, spaced, i * width, width);
                slot++;
            }
        }
        return spaced;
    }

    public static void checkWidth(int width)
    {
        for (int supported : WIDTHS) {
            if (width == supported) {
                return;
            }
        }
        throw new FerryException(ErrorCategory.INTERNAL_ERROR, "fixed-width value width " + width + " is not one of 1, 2, 4, 8, 16");
    }
}
