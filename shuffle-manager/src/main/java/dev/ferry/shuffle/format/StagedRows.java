package dev.ferry.shuffle.format;

import java.util.Arrays;

import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.unsafe.Platform;

/**
 * A map task's rows waiting to be scattered to their partitions' batches: each UnsafeRow's bytes
 * copied, in arrival order, into one heap arena with its partition id. {@link #sortByPartition}
 * orders them by partition with a counting sort (stable: a partition's rows keep their arrival
 * order), so the encoder can append each partition's run while that partition's vectors are in
 * cache instead of touching a different partition's vectors for every row.
 *
 * <p>Every array is sized once, from the heap granted for the stage ({@link #within}); its total is
 * {@link #footprintBytes}, which is what the encoder keeps accounted. Not thread-safe.
 */
final class StagedRows
{
    // The per-row index: partition, offset, size, and the sorted order.
    private static final int INDEX_BYTES_PER_ROW = 4 * Integer.BYTES;

    private final byte[] arena;
    private final int[] partitionOf;
    private final int[] offsetOf;
    private final int[] sizeOf;
    private final int[] order;
    private final int[] starts;
    private int count;
    private int used;

    private StagedRows(int arenaBytes, int maxRows, int partitions)
    {
        this.arena = new byte[arenaBytes];
        this.partitionOf = new int[maxRows];
        this.offsetOf = new int[maxRows];
        this.sizeOf = new int[maxRows];
        this.order = new int[maxRows];
        this.starts = new int[partitions + 1];
    }

    /**
     * The largest stage whose arrays together take at most {@code budgetBytes}, for rows of
     * {@code fields} fields (no UnsafeRow of them is smaller than its null bits and fixed slots, which
     * bounds how many rows the arena can hold), or null when the budget is too small to hold even
     * one such row per partition's start table.
     */
    static StagedRows within(long budgetBytes, int fields, int partitions)
    {
        long minRowBytes = UnsafeRow.calculateBitSetWidthInBytes(fields) + 8L * fields;
        long fixed = (long) Integer.BYTES * (partitions + 1);
        long left = budgetBytes - fixed;
        if (left <= minRowBytes + INDEX_BYTES_PER_ROW) {
            return null;
        }
        // arena + maxRows * index, with maxRows = arena / minRowBytes: the arena takes this share.
        long arenaBytes = Math.min(Integer.MAX_VALUE - 16, left * minRowBytes / (minRowBytes + INDEX_BYTES_PER_ROW));
        int maxRows = Math.toIntExact(Math.max(1, arenaBytes / minRowBytes));
        return new StagedRows((int) arenaBytes, maxRows, partitions);
    }

    /** Heap the stage's arrays take (what is accounted for it). */
    long footprintBytes()
    {
        return arena.length + (long) INDEX_BYTES_PER_ROW * order.length + (long) Integer.BYTES * starts.length;
    }

    /** Whether a row of {@code sizeInBytes} can ever be staged (else it goes straight to its batch). */
    boolean fits(int sizeInBytes)
    {
        return sizeInBytes <= arena.length;
    }

    /** Copies {@code row} in with its partition; false (nothing copied) when the stage is full. */
    boolean add(int partition, UnsafeRow row)
    {
        int size = row.getSizeInBytes();
        if (count == order.length || size > arena.length - used) {
            return false;
        }
        Platform.copyMemory(row.getBaseObject(), row.getBaseOffset(), arena, Platform.BYTE_ARRAY_OFFSET + (long) used, size);
        partitionOf[count] = partition;
        offsetOf[count] = used;
        sizeOf[count] = size;
        count++;
        used += size;
        return true;
    }

    int count()
    {
        return count;
    }

    /** Orders the staged rows by partition, arrival order kept within each; then {@link #runStart}/{@link #runEnd} and {@link #pointTo} read them. */
    void sortByPartition()
    {
        int partitions = starts.length - 1;
        Arrays.fill(starts, 0);
        for (int i = 0; i < count; i++) {
            starts[partitionOf[i] + 1]++;
        }
        for (int p = 0; p < partitions; p++) {
            starts[p + 1] += starts[p];
        }
        // starts[p] is where partition p's next row goes while filling; afterwards it is the end of p's run.
        for (int i = 0; i < count; i++) {
            order[starts[partitionOf[i]]++] = i;
        }
        // Shift back so that starts[p] is the start of p's run and starts[p + 1] its end.
        System.arraycopy(starts, 0, starts, 1, partitions);
        starts[0] = 0;
    }

    /** First position (in sorted order) of {@code partition}'s run, after {@link #sortByPartition}. */
    int runStart(int partition)
    {
        return starts[partition];
    }

    int runEnd(int partition)
    {
        return starts[partition + 1];
    }

    /** Points {@code row} at the staged row at {@code position} of the sorted order. */
    void pointTo(UnsafeRow row, int position)
    {
        int staged = order[position];
        row.pointTo(arena, Platform.BYTE_ARRAY_OFFSET + (long) offsetOf[staged], sizeOf[staged]);
    }

    /** Empties the stage, keeping its arrays. */
    void clear()
    {
        count = 0;
        used = 0;
    }
}
