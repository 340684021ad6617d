package dev.ferry.device.partition;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.device.DeviceStream;
import dev.ferry.device.kernel.KernelErrorFlags;
import dev.ferry.device.memory.BufferAllocator;
import dev.ferry.device.memory.DeviceBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Spark's {@code HashPartitioning} of one device batch into {@code n} per-partition device batches,
 * driving the partition kernels: row hashes over the keys, pmod ids, histogram, offsets, a stable
 * scatter into a row order, then per partition and column a gather of validity, values and string
 * bytes. Only sizes come back to the host (the partition starts, null counts and string byte bounds,
 * a few bytes per partition, and the error word), through {@code stream}, so they are counted as
 * the device-to-host copies they are on a GPU; every row byte stays in device memory.
 */
public final class DeviceHashPartitioning
{
    /** Rows per histogram/scatter thread, as the string scan's chunk. */
    public static final int CHUNK = 1024;

    private final DevicePartitioner kernels;
    private final BufferAllocator allocator;
    private final DeviceStream stream;

    public DeviceHashPartitioning(DevicePartitioner kernels, BufferAllocator allocator, DeviceStream stream)
    {
        this.kernels = requireNonNull(kernels, "kernels is null");
        this.allocator = requireNonNull(allocator, "allocator is null");
        this.stream = requireNonNull(stream, "stream is null");
    }

    /** One output partition: its rows and columns (in the input's column order). The caller owns the buffers. */
    public record Partition(int rows, List<PartitionedColumn> columns) {}

    /** The input's {@code rows} rows split into {@code partitions} partitions by {@code keys}; the input stays the caller's. */
    public List<Partition> partition(List<PartitionColumn> columns, List<PartitionKey> keys, int rows, int partitions)
    {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be at least 1, got " + partitions);
        }
        if (rows < 0) {
            throw new IllegalArgumentException("rows must not be negative: " + rows);
        }
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("hash partitioning needs at least one key column");
        }
        for (PartitionColumn column : columns) {
            column.checkRows(rows);
        }
        for (PartitionKey key : keys) {
            if (key.column() < 0 || key.column() >= columns.size()) {
                throw new IllegalArgumentException("key column " + key.column() + " is not one of the batch's " + columns.size() + " columns");
            }
            PartitionColumn column = columns.get(key.column());
            boolean bytes = key.kind() == PartitionKeyKind.BYTES;
            boolean layoutFits = bytes ? column.layout() == PartitionColumn.Layout.BYTES
                    : key.kind() == PartitionKeyKind.BOOLEAN ? column.layout() == PartitionColumn.Layout.BITS
                    : column.layout() == PartitionColumn.Layout.FIXED && column.width() == key.kind().width();
            if (!layoutFits) {
                throw new IllegalArgumentException("key column " + column.name() + " is " + column.layout() + " width " + column.width() + ", not a " + key.kind() + " column");
            }
        }
        List<DeviceBuffer> scratch = new ArrayList<>();
        List<List<PartitionedColumn>> out = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            out.add(new ArrayList<>());
        }
        boolean success = false;
        try {
            Plan plan = rows == 0 ? new Plan(null, null, null, null, new int[partitions + 1]) : plan(columns, keys, rows, partitions, scratch);
            int[] starts = plan.starts();
            for (PartitionColumn column : columns) {
                gatherColumn(column, rows, partitions, plan, scratch, out);
            }
            if (plan.errors() != null) {
                int flags = download(plan.errors(), 1)[0];
                if (flags != 0) {
                    throw new FerryException(ErrorCategory.INTERNAL_ERROR, "the partition kernels (" + kernels.describe() + ") failed on a batch of " + rows + " rows: "
                            + KernelErrorFlags.describe(flags));
                }
            }
            List<Partition> result = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                result.add(new Partition(starts[p + 1] - starts[p], out.get(p)));
            }
            success = true;
            return result;
        }
        finally {
            scratch.forEach(DeviceBuffer::close);
            if (!success) {
                out.forEach(columnsOut -> columnsOut.forEach(column -> column.buffers().forEach(DeviceBuffer::close)));
            }
        }
    }

    // Device buffers of the plan (in scratch) and the partition starts on the host: partition p is order[starts[p], starts[p + 1]).
    private record Plan(DeviceBuffer ids, DeviceBuffer errors, DeviceBuffer startsOnDevice, DeviceBuffer order, int[] starts) {}

    private Plan plan(List<PartitionColumn> columns, List<PartitionKey> keys, int rows, int partitions, List<DeviceBuffer> scratch)
    {
        DeviceBuffer hashes = allocate(4L * rows, scratch);
        DeviceBuffer ids = allocate(4L * rows, scratch);
        DeviceBuffer errors = allocate(4, scratch);
        kernels.clear(1, errors);
        kernels.seed(rows, hashes);
        for (PartitionKey key : keys) {
            PartitionColumn column = columns.get(key.column());
            if (key.kind() == PartitionKeyKind.BYTES) {
                kernels.hashBytes(column.offsets(), column.values(), column.validity(), rows, hashes);
            }
            else {
                kernels.hashFixed(column.values(), column.validity(), key.kind(), rows, hashes);
            }
        }
        kernels.partitionIds(hashes, rows, partitions, ids);
        int chunkCount = Math.toIntExact(((long) rows + CHUNK - 1) / CHUNK);
        DeviceBuffer counts = allocate(4L * chunkCount * partitions, scratch);
        DeviceBuffer totals = allocate(4L * partitions, scratch);
        DeviceBuffer starts = allocate(4L * (partitions + 1), scratch);
        kernels.histogram(ids, rows, CHUNK, partitions, counts, errors);
        kernels.scanChunks(counts, chunkCount, partitions, totals);
        kernels.starts(totals, partitions, starts);
        DeviceBuffer order = allocate(4L * rows, scratch);
        kernels.scatter(ids, rows, CHUNK, partitions, counts, starts, order);
        return new Plan(ids, errors, starts, order, download(starts, partitions + 1));
    }

    private void gatherColumn(PartitionColumn column, int rows, int partitions, Plan plan, List<DeviceBuffer> scratch, List<List<PartitionedColumn>> out)
    {
        int[] starts = plan.starts();
        DeviceBuffer order = plan.order();
        int[] nulls = new int[partitions];
        if (rows > 0 && column.validity() != null && column.nullCount() > 0) {
            DeviceBuffer counters = allocate(4L * partitions, scratch);
            kernels.clear(partitions, counters);
            kernels.nullCounts(column.validity(), plan.ids(), rows, counters);
            nulls = download(counters, partitions);
        }
        DeviceBuffer positions = null;
        int[] bounds = new int[partitions + 1];
        if (rows > 0 && column.layout() == PartitionColumn.Layout.BYTES) {
            int chunkCount = Math.toIntExact(((long) rows + CHUNK - 1) / CHUNK);
            DeviceBuffer lengths = allocate(4L * rows, scratch);
            DeviceBuffer sums = allocate(8L * (chunkCount + 1), scratch);
            positions = allocate(4L * (rows + 1), scratch);
            DeviceBuffer boundBuffer = allocate(4L * (partitions + 1), scratch);
            kernels.stringLengths(column.offsets(), order, rows, lengths);
            kernels.sumChunks(lengths, rows, CHUNK, sums);
            kernels.sumStarts(sums, chunkCount);
            kernels.sumWrite(lengths, rows, CHUNK, sums, positions, plan.errors());
            kernels.stringBounds(positions, plan.startsOnDevice(), partitions, boundBuffer);
            bounds = download(boundBuffer, partitions + 1);
        }
        for (int p = 0; p < partitions; p++) {
            int first = starts[p];
            int count = starts[p + 1] - first;
            List<DeviceBuffer> buffers = new ArrayList<>();
            List<Long> lengths = new ArrayList<>();
            try {
                long bitBytes = ((long) count + 7) / 8;
                DeviceBuffer validity = output(bitBytes, buffers, lengths);
                if (count > 0) {
                    kernels.gatherBits(column.validity(), order, first, count, validity);
                }
                switch (column.layout()) {
                    case FIXED -> {
                        DeviceBuffer values = output((long) column.width() * count, buffers, lengths);
                        if (count > 0) {
                            kernels.gatherFixed(column.values(), column.width(), order, first, count, values);
                        }
                    }
                    case BITS -> {
                        DeviceBuffer values = output(bitBytes, buffers, lengths);
                        if (count > 0) {
                            kernels.gatherBits(column.values(), order, first, count, values);
                        }
                    }
                    case BYTES -> {
                        DeviceBuffer offsets = output(4L * (count + 1), buffers, lengths);
                        DeviceBuffer data = output(count == 0 ? 0 : (long) bounds[p + 1] - bounds[p], buffers, lengths);
                        if (count > 0) {
                            kernels.stringOffsets(positions, first, count, offsets);
                            kernels.stringBytes(column.offsets(), column.values(), order, first, count, offsets, data);
                        }
                        else {
                            // No launch for an empty partition: its one offset, 0, comes from a clear.
                            kernels.clear(1, offsets);
                        }
                    }
                }
            }
            catch (RuntimeException e) {
                buffers.forEach(DeviceBuffer::close);
                throw e;
            }
            out.get(p).add(new PartitionedColumn(nulls[p], buffers, lengths));
        }
    }

    private DeviceBuffer output(long length, List<DeviceBuffer> buffers, List<Long> lengths)
    {
        // Device allocations are never empty, and Arrow asks for 8-byte alignment: round up.
        DeviceBuffer buffer = allocator.allocate(Math.max(8, (length + 7) & ~7L));
        buffers.add(buffer);
        lengths.add(length);
        return buffer;
    }

    private DeviceBuffer allocate(long bytes, List<DeviceBuffer> scratch)
    {
        DeviceBuffer buffer = allocator.allocate(Math.max(8, (bytes + 7) & ~7L));
        scratch.add(buffer);
        return buffer;
    }

    // A few words of sizes: a real device-to-host copy on a GPU, counted as one by the stream.
    private int[] download(DeviceBuffer buffer, int count)
    {
        ByteBuffer host = ByteBuffer.allocateDirect(4 * count).order(ByteOrder.LITTLE_ENDIAN);
        stream.copyToHost(buffer, 0, host);
        stream.synchronize();
        int[] values = new int[count];
        for (int i = 0; i < count; i++) {
            values[i] = host.getInt(4 * i);
        }
        return values;
    }
}
