package dev.ferry.device.partition;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.device.host.ByteBufferMemory;
import dev.ferry.device.memory.DeviceBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The partition kernels in Java for the simulated (and host) backend, kernel for kernel with
 * {@code spark_partition.cu}: each launch calls the kernel body once per (block, thread) of the
 * grid {@link LaunchingPartitioner} gives every implementation, with the same index math.
 *
 * <p>The kernels read and write the device buffers where they lie: simulated device memory is a
 * JVM-addressable arena, so the bodies work on {@link ByteBufferMemory} windows of it directly and
 * not through a {@code DeviceStream}, whose copies the runtime counts as crossing PCIe. On a GPU
 * these bytes never leave device memory either, so counting them would be wrong.
 *
 * <p>It cannot see races; each thread writes disjoint bytes, except the error word and the null
 * counters, which the kernels update atomically (one thread at a time here).
 */
public final class EmulatedPartitioner
        extends LaunchingPartitioner
{
    private static final int KEY_INT32 = PartitionKeyKind.INT32.code();
    private static final int KEY_INT64 = PartitionKeyKind.INT64.code();
    private static final int KEY_FLOAT32 = PartitionKeyKind.FLOAT32.code();
    private static final int KEY_FLOAT64 = PartitionKeyKind.FLOAT64.code();
    private static final int KEY_BOOLEAN = PartitionKeyKind.BOOLEAN.code();
    private static final int KEY_DECIMAL_LONG = PartitionKeyKind.DECIMAL_LONG.code();
    private static final int KEY_DECIMAL_BYTES = PartitionKeyKind.DECIMAL_BYTES.code();
    private static final int VALUE_RANGE = 2;
    private static final int OFFSET_OVERFLOW = 16;

    @Override
    public String describe()
    {
        return "the Java emulation of the partition kernels";
    }

    @FunctionalInterface
    private interface Body
    {
        void thread(long index, Object[] a);
    }

    @Override
    protected void run(String kernel, int grid, int block, Object... arguments)
    {
        Object[] a = new Object[arguments.length];
        for (int i = 0; i < arguments.length; i++) {
            a[i] = arguments[i] instanceof DeviceBuffer buffer ? view(buffer) : arguments[i];
        }
        Body body = body(kernel);
        for (long blockIdx = 0; blockIdx < grid; blockIdx++) {
            for (long threadIdx = 0; threadIdx < block; threadIdx++) {
                body.thread(blockIdx * block + threadIdx, a);
            }
        }
    }

    // The buffer's bytes in simulated device memory itself (see the class comment): no copy, no counter.
    private static ByteBuffer view(DeviceBuffer buffer)
    {
        buffer.checkOpen("run a partition kernel on");
        return ByteBufferMemory.of(buffer.memory()).window(buffer.memoryOffset(), buffer.length()).order(ByteOrder.LITTLE_ENDIAN);
    }

    private Body body(String kernel)
    {
        return switch (kernel) {
            case "ferry_murmur3_seed" -> EmulatedPartitioner::seedBody;
            case "ferry_murmur3_fixed" -> EmulatedPartitioner::hashFixedBody;
            case "ferry_murmur3_bytes" -> EmulatedPartitioner::hashBytesBody;
            case "ferry_partition_ids" -> EmulatedPartitioner::idsBody;
            case "ferry_partition_clear" -> EmulatedPartitioner::clearBody;
            case "ferry_partition_histogram" -> EmulatedPartitioner::histogramBody;
            case "ferry_partition_scan_chunks" -> EmulatedPartitioner::scanChunksBody;
            case "ferry_partition_starts" -> EmulatedPartitioner::startsBody;
            case "ferry_partition_scatter" -> EmulatedPartitioner::scatterBody;
            case "ferry_partition_null_counts" -> EmulatedPartitioner::nullCountsBody;
            case "ferry_gather_fixed" -> EmulatedPartitioner::gatherFixedBody;
            case "ferry_gather_bits" -> EmulatedPartitioner::gatherBitsBody;
            case "ferry_gather_string_lengths" -> EmulatedPartitioner::stringLengthsBody;
            case "ferry_partition_sum_chunks" -> EmulatedPartitioner::sumChunksBody;
            case "ferry_partition_sum_starts" -> EmulatedPartitioner::sumStartsBody;
            case "ferry_partition_sum_write" -> EmulatedPartitioner::sumWriteBody;
            case "ferry_partition_string_bounds" -> EmulatedPartitioner::stringBoundsBody;
            case "ferry_gather_string_offsets" -> EmulatedPartitioner::stringOffsetsBody;
            case "ferry_gather_string_bytes" -> EmulatedPartitioner::stringBytesBody;
            default -> throw new FerryException(ErrorCategory.INTERNAL_ERROR, "no emulation of partition kernel " + kernel);
        };
    }

    // ---- argument access

    private static ByteBuffer p(Object[] a, int i)
    {
        return (ByteBuffer) a[i];
    }

    private static int n(Object[] a, int i)
    {
        return (Integer) a[i];
    }

    private static boolean bit(ByteBuffer bits, long index)
    {
        return bits == null || ((bits.get((int) (index >> 3)) >> (index & 7)) & 1) != 0;
    }

    private static int u32(ByteBuffer memory, long index)
    {
        return memory.getInt(Math.toIntExact(index * 4));
    }

    private static void put32(ByteBuffer memory, long index, int value)
    {
        memory.putInt(Math.toIntExact(index * 4), value);
    }

    private static long u64(ByteBuffer memory, long index)
    {
        return memory.getLong(Math.toIntExact(index * 8));
    }

    private static void put64(ByteBuffer memory, long index, long value)
    {
        memory.putLong(Math.toIntExact(index * 8), value);
    }

    private static void or(ByteBuffer errors, int flags)
    {
        errors.putInt(0, errors.getInt(0) | flags);
    }

    private static long chunkCount(int rows, int chunk)
    {
        return ((long) rows + chunk - 1) / chunk;
    }

    // ---- hashes

    private static void seedBody(long row, Object[] a)
    {
        if (row >= n(a, 0)) {
            return;
        }
        put32(p(a, 1), row, SparkMurmur3.SEED);
    }

    private static void hashFixedBody(long row, Object[] a)
    {
        ByteBuffer values = p(a, 0);
        ByteBuffer validity = p(a, 1);
        int kind = n(a, 2);
        ByteBuffer hashes = p(a, 4);
        if (row >= n(a, 3) || !bit(validity, row)) {
            return;
        }
        int seed = u32(hashes, row);
        int hash = seed;
        if (kind == KEY_INT32) {
            hash = SparkMurmur3.hashInt(values.getInt(Math.toIntExact(row * 4)), seed);
        }
        else if (kind == KEY_FLOAT32) {
            int bits = values.getInt(Math.toIntExact(row * 4));
            if (bits == 0x80000000) {
                bits = 0;
            }
            else if ((bits & 0x7f800000) == 0x7f800000 && (bits & 0x007fffff) != 0) {
                bits = 0x7fc00000;
            }
            hash = SparkMurmur3.hashInt(bits, seed);
        }
        else if (kind == KEY_INT64 || kind == KEY_FLOAT64 || kind == KEY_DECIMAL_LONG) {
            long bits = values.getLong(Math.toIntExact(row * (kind == KEY_DECIMAL_LONG ? 16 : 8)));
            if (kind == KEY_FLOAT64) {
                if (bits == 0x8000000000000000L) {
                    bits = 0;
                }
                else if ((bits & 0x7ff0000000000000L) == 0x7ff0000000000000L && (bits & 0x000fffffffffffffL) != 0) {
                    bits = 0x7ff8000000000000L;
                }
            }
            hash = SparkMurmur3.hashLong(bits, seed);
        }
        else if (kind == KEY_BOOLEAN) {
            hash = SparkMurmur3.hashInt(bit(values, row) ? 1 : 0, seed);
        }
        else if (kind == KEY_DECIMAL_BYTES) {
            byte[] bigEndian = new byte[16];
            for (int i = 0; i < 16; i++) {
                bigEndian[i] = values.get(Math.toIntExact(row * 16 + 15 - i));
            }
            int first = 0;
            while (first < 15 && ((bigEndian[first] == 0 && (bigEndian[first + 1] & 0x80) == 0) || (bigEndian[first] == (byte) 0xFF && (bigEndian[first + 1] & 0x80) != 0))) {
                first++;
            }
            hash = SparkMurmur3.hashBytes(bigEndian, first, 16 - first, seed);
        }
        put32(hashes, row, hash);
    }

    private static void hashBytesBody(long row, Object[] a)
    {
        ByteBuffer offsets = p(a, 0);
        ByteBuffer data = p(a, 1);
        ByteBuffer hashes = p(a, 4);
        if (row >= n(a, 3) || !bit(p(a, 2), row)) {
            return;
        }
        int start = u32(offsets, row);
        int length = u32(offsets, row + 1) - start;
        byte[] bytes = new byte[length];
        data.get(start, bytes);
        put32(hashes, row, SparkMurmur3.hashBytes(bytes, 0, length, u32(hashes, row)));
    }

    private static void idsBody(long row, Object[] a)
    {
        int partitions = n(a, 2);
        if (row >= n(a, 1)) {
            return;
        }
        int remainder = u32(p(a, 0), row) % partitions;
        put32(p(a, 3), row, remainder < 0 ? remainder + partitions : remainder);
    }

    // ---- histogram, offsets, scatter

    private static void clearBody(long index, Object[] a)
    {
        if (index >= n(a, 0)) {
            return;
        }
        put32(p(a, 1), index, 0);
    }

    private static void histogramBody(long c, Object[] a)
    {
        ByteBuffer ids = p(a, 0);
        int rows = n(a, 1);
        int chunk = n(a, 2);
        int partitions = n(a, 3);
        ByteBuffer counts = p(a, 4);
        if (c >= chunkCount(rows, chunk)) {
            return;
        }
        long own = c * partitions;
        for (int q = 0; q < partitions; q++) {
            put32(counts, own + q, 0);
        }
        long first = c * chunk;
        long last = Math.min(first + chunk, rows);
        for (long i = first; i < last; i++) {
            int id = u32(ids, i);
            if (id < 0 || id >= partitions) {
                or(p(a, 5), VALUE_RANGE);
                continue;
            }
            put32(counts, own + id, u32(counts, own + id) + 1);
        }
    }

    private static void scanChunksBody(long q, Object[] a)
    {
        ByteBuffer counts = p(a, 0);
        int chunks = n(a, 1);
        int partitions = n(a, 2);
        if (q >= partitions) {
            return;
        }
        int running = 0;
        for (long c = 0; c < chunks; c++) {
            int count = u32(counts, c * partitions + q);
            put32(counts, c * partitions + q, running);
            running += count;
        }
        put32(p(a, 3), q, running);
    }

    private static void startsBody(long index, Object[] a)
    {
        if (index != 0) {
            return;
        }
        int partitions = n(a, 1);
        int running = 0;
        for (int q = 0; q < partitions; q++) {
            put32(p(a, 2), q, running);
            running += u32(p(a, 0), q);
        }
        put32(p(a, 2), partitions, running);
    }

    private static void scatterBody(long c, Object[] a)
    {
        ByteBuffer ids = p(a, 0);
        int rows = n(a, 1);
        int chunk = n(a, 2);
        int partitions = n(a, 3);
        ByteBuffer counts = p(a, 4);
        ByteBuffer starts = p(a, 5);
        ByteBuffer order = p(a, 6);
        if (c >= chunkCount(rows, chunk)) {
            return;
        }
        long cursor = c * partitions;
        long first = c * chunk;
        long last = Math.min(first + chunk, rows);
        for (long i = first; i < last; i++) {
            int id = u32(ids, i);
            if (id < 0 || id >= partitions) {
                continue;
            }
            put32(order, u32(starts, id) + u32(counts, cursor + id), (int) i);
            put32(counts, cursor + id, u32(counts, cursor + id) + 1);
        }
    }

    private static void nullCountsBody(long row, Object[] a)
    {
        if (row >= n(a, 2) || bit(p(a, 0), row)) {
            return;
        }
        int id = u32(p(a, 1), row);
        put32(p(a, 3), id, u32(p(a, 3), id) + 1);
    }

    // ---- gathers

    private static void gatherFixedBody(long index, Object[] a)
    {
        ByteBuffer values = p(a, 0);
        int width = n(a, 1);
        ByteBuffer order = p(a, 2);
        int first = n(a, 3);
        ByteBuffer out = p(a, 5);
        if (index >= n(a, 4)) {
            return;
        }
        long source = (long) u32(order, first + index) * width;
        long target = index * width;
        for (int b = 0; b < width; b++) {
            out.put(Math.toIntExact(target + b), values.get(Math.toIntExact(source + b)));
        }
    }

    private static void gatherBitsBody(long byteIndex, Object[] a)
    {
        ByteBuffer bits = p(a, 0);
        ByteBuffer order = p(a, 1);
        int first = n(a, 2);
        int count = n(a, 3);
        if (byteIndex >= ((long) count + 7) / 8) {
            return;
        }
        int value = 0;
        for (int b = 0; b < 8; b++) {
            long index = byteIndex * 8 + b;
            if (index < count && bit(bits, u32(order, first + index))) {
                value |= 1 << b;
            }
        }
        p(a, 4).put(Math.toIntExact(byteIndex), (byte) value);
    }

    private static void stringLengthsBody(long j, Object[] a)
    {
        if (j >= n(a, 2)) {
            return;
        }
        int row = u32(p(a, 1), j);
        put32(p(a, 3), j, u32(p(a, 0), row + 1) - u32(p(a, 0), row));
    }

    private static void sumChunksBody(long c, Object[] a)
    {
        ByteBuffer lengths = p(a, 0);
        int rows = n(a, 1);
        int chunk = n(a, 2);
        if (c >= chunkCount(rows, chunk)) {
            return;
        }
        long first = c * chunk;
        long last = Math.min(first + chunk, rows);
        long sum = 0;
        for (long i = first; i < last; i++) {
            sum += Integer.toUnsignedLong(u32(lengths, i));
        }
        put64(p(a, 3), c, sum);
    }

    private static void sumStartsBody(long index, Object[] a)
    {
        if (index != 0) {
            return;
        }
        ByteBuffer sums = p(a, 0);
        int chunks = n(a, 1);
        long running = 0;
        for (int c = 0; c < chunks; c++) {
            long next = running + u64(sums, c);
            put64(sums, c, running);
            running = next;
        }
        put64(sums, chunks, running);
    }

    private static void sumWriteBody(long c, Object[] a)
    {
        ByteBuffer lengths = p(a, 0);
        int rows = n(a, 1);
        int chunk = n(a, 2);
        ByteBuffer positions = p(a, 4);
        if (c >= chunkCount(rows, chunk)) {
            return;
        }
        long first = c * chunk;
        long last = Math.min(first + chunk, rows);
        long running = u64(p(a, 3), c);
        for (long i = first; i <= last; i++) {
            if (i == last && last != rows) {
                break;
            }
            if (Long.compareUnsigned(running, Integer.MAX_VALUE) > 0) {
                or(p(a, 5), OFFSET_OVERFLOW);
                put32(positions, i, 0);
            }
            else {
                put32(positions, i, (int) running);
            }
            if (i < last) {
                running += Integer.toUnsignedLong(u32(lengths, i));
            }
        }
    }

    private static void stringBoundsBody(long q, Object[] a)
    {
        if (q > n(a, 2)) {
            return;
        }
        put32(p(a, 3), q, u32(p(a, 0), u32(p(a, 1), q)));
    }

    private static void stringOffsetsBody(long index, Object[] a)
    {
        ByteBuffer positions = p(a, 0);
        int first = n(a, 1);
        if (index > n(a, 2)) {
            return;
        }
        put32(p(a, 3), index, u32(positions, first + index) - u32(positions, first));
    }

    private static void stringBytesBody(long index, Object[] a)
    {
        ByteBuffer offsets = p(a, 0);
        ByteBuffer data = p(a, 1);
        ByteBuffer order = p(a, 2);
        int first = n(a, 3);
        ByteBuffer outOffsets = p(a, 5);
        ByteBuffer outData = p(a, 6);
        if (index >= n(a, 4)) {
            return;
        }
        int row = u32(order, first + index);
        int source = u32(offsets, row);
        int target = u32(outOffsets, index);
        int length = u32(outOffsets, index + 1) - target;
        for (int b = 0; b < length; b++) {
            outData.put(target + b, data.get(source + b));
        }
    }
}
