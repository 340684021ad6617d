package dev.ferry.device.partition;

import dev.ferry.device.memory.DeviceBuffer;

/**
 * The launch shape of every partition kernel, in one place: each implementation gets the same
 * (kernel, grid, block, arguments) and only says how to run one launch, so the emulation, the
 * host-compiled sources and the GPU see the same grids. Arguments are {@link Integer}s (C int),
 * {@link DeviceBuffer}s (pointers) and {@code null} (nullptr), in the kernel's parameter order.
 */
public abstract class LaunchingPartitioner
        implements DevicePartitioner
{
    public static final int BLOCK = 256;

    /** Runs {@code kernel} on a {@code grid} x {@code block} grid and waits for it. */
    protected abstract void run(String kernel, int grid, int block, Object... arguments);

    private void launch(String kernel, long items, Object... arguments)
    {
        if (items <= 0) {
            return;
        }
        run(kernel, Math.toIntExact((items + BLOCK - 1) / BLOCK), BLOCK, arguments);
    }

    private static long chunks(int rows, int chunk)
    {
        return ((long) rows + chunk - 1) / chunk;
    }

    @Override
    public void seed(int rows, DeviceBuffer hashes)
    {
        launch("ferry_murmur3_seed", rows, rows, hashes);
    }

    @Override
    public void hashFixed(DeviceBuffer values, DeviceBuffer validity, PartitionKeyKind kind, int rows, DeviceBuffer hashes)
    {
        if (kind == PartitionKeyKind.BYTES) {
            throw new IllegalArgumentException("string and binary keys hash with hashBytes");
        }
        launch("ferry_murmur3_fixed", rows, values, validity, kind.code(), rows, hashes);
    }

    @Override
    public void hashBytes(DeviceBuffer offsets, DeviceBuffer data, DeviceBuffer validity, int rows, DeviceBuffer hashes)
    {
        launch("ferry_murmur3_bytes", rows, offsets, data, validity, rows, hashes);
    }

    @Override
    public void partitionIds(DeviceBuffer hashes, int rows, int partitions, DeviceBuffer ids)
    {
        launch("ferry_partition_ids", rows, hashes, rows, partitions, ids);
    }

    @Override
    public void clear(int count, DeviceBuffer words)
    {
        launch("ferry_partition_clear", count, count, words);
    }

    @Override
    public void histogram(DeviceBuffer ids, int rows, int chunk, int partitions, DeviceBuffer counts, DeviceBuffer errors)
    {
        launch("ferry_partition_histogram", chunks(rows, chunk), ids, rows, chunk, partitions, counts, errors);
    }

    @Override
    public void scanChunks(DeviceBuffer counts, int chunkCount, int partitions, DeviceBuffer totals)
    {
        launch("ferry_partition_scan_chunks", partitions, counts, chunkCount, partitions, totals);
    }

    @Override
    public void starts(DeviceBuffer totals, int partitions, DeviceBuffer starts)
    {
        run("ferry_partition_starts", 1, 1, totals, partitions, starts);
    }

    @Override
    public void scatter(DeviceBuffer ids, int rows, int chunk, int partitions, DeviceBuffer counts, DeviceBuffer starts, DeviceBuffer order)
    {
        launch("ferry_partition_scatter", chunks(rows, chunk), ids, rows, chunk, partitions, counts, starts, order);
    }

    @Override
    public void nullCounts(DeviceBuffer validity, DeviceBuffer ids, int rows, DeviceBuffer nulls)
    {
        launch("ferry_partition_null_counts", rows, validity, ids, rows, nulls);
    }

    @Override
    public void gatherFixed(DeviceBuffer values, int width, DeviceBuffer order, int first, int count, DeviceBuffer out)
    {
        launch("ferry_gather_fixed", count, values, width, order, first, count, out);
    }

    @Override
    public void gatherBits(DeviceBuffer bits, DeviceBuffer order, int first, int count, DeviceBuffer out)
    {
        launch("ferry_gather_bits", ((long) count + 7) / 8, bits, order, first, count, out);
    }

    @Override
    public void stringLengths(DeviceBuffer offsets, DeviceBuffer order, int rows, DeviceBuffer lengths)
    {
        launch("ferry_gather_string_lengths", rows, offsets, order, rows, lengths);
    }

    @Override
    public void sumChunks(DeviceBuffer lengths, int rows, int chunk, DeviceBuffer sums)
    {
        launch("ferry_partition_sum_chunks", chunks(rows, chunk), lengths, rows, chunk, sums);
    }

    @Override
    public void sumStarts(DeviceBuffer sums, int chunkCount)
    {
        run("ferry_partition_sum_starts", 1, 1, sums, chunkCount);
    }

    @Override
    public void sumWrite(DeviceBuffer lengths, int rows, int chunk, DeviceBuffer sums, DeviceBuffer positions, DeviceBuffer errors)
    {
        launch("ferry_partition_sum_write", chunks(rows, chunk), lengths, rows, chunk, sums, positions, errors);
    }

    @Override
    public void stringBounds(DeviceBuffer positions, DeviceBuffer starts, int partitions, DeviceBuffer bounds)
    {
        launch("ferry_partition_string_bounds", (long) partitions + 1, positions, starts, partitions, bounds);
    }

    @Override
    public void stringOffsets(DeviceBuffer positions, int first, int count, DeviceBuffer out)
    {
        launch("ferry_gather_string_offsets", (long) count + 1, positions, first, count, out);
    }

    @Override
    public void stringBytes(DeviceBuffer offsets, DeviceBuffer data, DeviceBuffer order, int first, int count, DeviceBuffer outOffsets, DeviceBuffer outData)
    {
        launch("ferry_gather_string_bytes", count, offsets, data, order, first, count, outOffsets, outData);
    }
}
