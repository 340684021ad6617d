package dev.ferry.device.partition;

import dev.ferry.device.memory.DeviceBuffer;

/**
 * The kernels of {@code spark_partition.cu}, one method each, over device buffers of one device
 * (a {@code null} buffer is the kernel's {@code nullptr}: a validity bitmap with every row valid).
 * Each call runs its kernel to completion. {@link DeviceHashPartitioning} drives them; the
 * implementations are the kernels on a GPU ({@code CudaPartitioner}), their Java emulation on the
 * simulated backend ({@link EmulatedPartitioner}), and in tests the sources compiled for the host.
 */
public interface DevicePartitioner
{
    /** What runs the kernels, for messages. */
    String describe();

    void seed(int rows, DeviceBuffer hashes);

    void hashFixed(DeviceBuffer values, DeviceBuffer validity, PartitionKeyKind kind, int rows, DeviceBuffer hashes);

    void hashBytes(DeviceBuffer offsets, DeviceBuffer data, DeviceBuffer validity, int rows, DeviceBuffer hashes);

    void partitionIds(DeviceBuffer hashes, int rows, int partitions, DeviceBuffer ids);

    void clear(int count, DeviceBuffer words);

    void histogram(DeviceBuffer ids, int rows, int chunk, int partitions, DeviceBuffer counts, DeviceBuffer errors);

    void scanChunks(DeviceBuffer counts, int chunkCount, int partitions, DeviceBuffer totals);

    void starts(DeviceBuffer totals, int partitions, DeviceBuffer starts);

    void scatter(DeviceBuffer ids, int rows, int chunk, int partitions, DeviceBuffer counts, DeviceBuffer starts, DeviceBuffer order);

    void nullCounts(DeviceBuffer validity, DeviceBuffer ids, int rows, DeviceBuffer nulls);

    void gatherFixed(DeviceBuffer values, int width, DeviceBuffer order, int first, int count, DeviceBuffer out);

    void gatherBits(DeviceBuffer bits, DeviceBuffer order, int first, int count, DeviceBuffer out);

    void stringLengths(DeviceBuffer offsets, DeviceBuffer order, int rows, DeviceBuffer lengths);

    void sumChunks(DeviceBuffer lengths, int rows, int chunk, DeviceBuffer sums);

    void sumStarts(DeviceBuffer sums, int chunkCount);

    void sumWrite(DeviceBuffer lengths, int rows, int chunk, DeviceBuffer sums, DeviceBuffer positions, DeviceBuffer errors);

    void stringBounds(DeviceBuffer positions, DeviceBuffer starts, int partitions, DeviceBuffer bounds);

    void stringOffsets(DeviceBuffer positions, int first, int count, DeviceBuffer out);

    void stringBytes(DeviceBuffer offsets, DeviceBuffer data, DeviceBuffer order, int first, int count, DeviceBuffer outOffsets, DeviceBuffer outData);
}
