package dev.ferry.device.partition;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Spark's hash partitioning computed on the host from a batch's Arrow bytes, value by value with
 * Java's own types ({@link Float#floatToIntBits}, {@link BigInteger#toByteArray}) and
 * {@link SparkMurmur3}: the expected side for the partition kernels (host-compiled sources in tests,
 * the GPU in gpu-check). Partition ids and the stable order of rows within partitions.
 */
public final class PartitionReference
{
    private PartitionReference() {}

    /** One key column's Arrow buffers on the host; {@code validity} null: every row valid; {@code offsets} for strings. */
    public record HostKey(PartitionKeyKind kind, byte[] validity, byte[] values, int[] offsets)
    {
        public HostKey
        {
            requireNonNull(kind, "kind is null");
            requireNonNull(values, "values is null");
        }
    }

    public static int[] partitionIds(List<HostKey> keys, int rows, int partitions)
    {
        int[] ids = new int[rows];
        for (int row = 0; row < rows; row++) {
            int hash = SparkMurmur3.SEED;
            for (HostKey key : keys) {
                if (key.validity() != null && !bit(key.validity(), row)) {
                    continue;
                }
                hash = hash(key, row, hash);
            }
            ids[row] = SparkMurmur3.partition(hash, partitions);
        }
        return ids;
    }

    /** Rows by partition, input order kept within each: what a stable scatter must produce. */
    public static int[] stableOrder(int[] ids, int partitions)
    {
        int[] starts = new int[partitions + 1];
        for (int id : ids) {
            starts[id + 1]++;
        }
        for (int p = 0; p < partitions; p++) {
            starts[p + 1] += starts[p];
        }
        int[] order = new int[ids.length];
        for (int row = 0; row < ids.length; row++) {
            order[starts[ids[row]]++] = row;
        }
        return order;
    }

    private static int hash(HostKey key, int row, int seed)
    {
        ByteBuffer values = ByteBuffer.wrap(key.values()).order(ByteOrder.LITTLE_ENDIAN);
        return switch (key.kind()) {
            case INT32 -> SparkMurmur3.hashInt(values.getInt(4 * row), seed);
            case INT64 -> SparkMurmur3.hashLong(values.getLong(8 * row), seed);
            case FLOAT32 -> SparkMurmur3.hashFloat(values.getFloat(4 * row), seed);
            case FLOAT64 -> SparkMurmur3.hashDouble(values.getDouble(8 * row), seed);
            case BOOLEAN -> SparkMurmur3.hashBoolean(bit(key.values(), row), seed);
            case DECIMAL_LONG -> SparkMurmur3.hashDecimal(unscaled(key.values(), row), 18, seed);
            case DECIMAL_BYTES -> SparkMurmur3.hashDecimal(unscaled(key.values(), row), 38, seed);
            case BYTES -> SparkMurmur3.hashBytes(key.values(), key.offsets()[row], key.offsets()[row + 1] - key.offsets()[row], seed);
        };
    }

    /** A 16-byte little-endian two's complement Arrow decimal's unscaled value. */
    public static BigInteger unscaled(byte[] values, int row)
    {
        byte[] bigEndian = new byte[16];
        for (int i = 0; i < 16; i++) {
            bigEndian[i] = values[16 * row + 15 - i];
        }
        return new BigInteger(bigEndian);
    }

    private static boolean bit(byte[] bits, int index)
    {
        return ((bits[index >> 3] >> (index & 7)) & 1) != 0;
    }
}
