package dev.ferry.gds.repartition;

import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.device.partition.PartitionReference;
import dev.ferry.gds.device.DeviceBatch;
import dev.ferry.gds.device.DeviceColumn;
import dev.ferry.gds.device.DeviceTarget;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.StructField;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A batch of random Arrow columns kept on the host and uploaded as a {@link DeviceBatch} (the
 * layout the gds reader's device batches have): the input of the repartition tests, and the check
 * of their output against {@link PartitionReference} (ids, stable order) and the input's bytes.
 * Values include Spark's edge cases: -0.0, NaNs of several bit patterns, decimal 0 and -1,
 * strings of every tail length with bytes above 0x7F, and null rows holding garbage values.
 */
final class RandomBatch
{
    record Column(StructField field, byte[] validity, byte[] values, int[] offsets, int nullCount) {}

    /** One nullable column of every type the partition kernels hash (the key kinds), in the order the tests index them. */
    static final List<StructField> EVERY_KEY_KIND = List.of(
            DataTypes.createStructField("i", DataTypes.IntegerType, true),
            DataTypes.createStructField("l", DataTypes.LongType, true),
            DataTypes.createStructField("s", DataTypes.StringType, true),
            DataTypes.createStructField("d", DataTypes.DateType, true),
            DataTypes.createStructField("t", DataTypes.TimestampType, true),
            DataTypes.createStructField("small", DataTypes.createDecimalType(10, 2), true),
            DataTypes.createStructField("large", DataTypes.createDecimalType(30, 5), true),
            DataTypes.createStructField("b", DataTypes.BooleanType, true),
            DataTypes.createStructField("f", DataTypes.FloatType, true),
            DataTypes.createStructField("x", DataTypes.DoubleType, true));

    final int rows;
    final List<Column> columns;

    private RandomBatch(int rows, List<Column> columns)
    {
        this.rows = rows;
        this.columns = columns;
    }

    static RandomBatch generate(Random random, int rows, List<StructField> fields)
    {
        List<Column> columns = new ArrayList<>();
        for (StructField field : fields) {
            columns.add(column(random, rows, field));
        }
        return new RandomBatch(rows, columns);
    }

    private static Column column(Random random, int rows, StructField field)
    {
        DataType type = field.dataType();
        byte[] validity = new byte[(rows + 7) / 8];
        int nulls = 0;
        for (int row = 0; row < rows; row++) {
            if (!field.nullable() || random.nextInt(7) != 0) {
                validity[row >> 3] |= (byte) (1 << (row & 7));
            }
            else {
                nulls++;
            }
        }
        if (type.equals(DataTypes.StringType) || type.equals(DataTypes.BinaryType)) {
            int[] offsets = new int[rows + 1];
            ByteBuffer data = ByteBuffer.allocate(rows * 16 + 8);
            for (int row = 0; row < rows; row++) {
                offsets[row] = data.position();
                if (valid(validity, row)) {
                    data.put(text(random).getBytes(StandardCharsets.UTF_8));
                }
            }
            offsets[rows] = data.position();
            return new Column(field, validity, Arrays.copyOf(data.array(), data.position()), offsets, nulls);
        }
        if (type.equals(DataTypes.BooleanType)) {
            byte[] bits = new byte[(rows + 7) / 8];
            random.nextBytes(bits);
            return new Column(field, validity, bits, null, nulls);
        }
        int width = RepartitionTypes.width(type);
        ByteBuffer values = ByteBuffer.allocate(width * rows).order(ByteOrder.LITTLE_ENDIAN);
        for (int row = 0; row < rows; row++) {
            if (!valid(validity, row)) {
                // Garbage under a null: the hash must not read it.
                byte[] garbage = new byte[width];
                random.nextBytes(garbage);
                values.put(garbage);
                continue;
            }
            if (type instanceof DecimalType decimal) {
                values.put(decimalBytes(decimal(random, decimal)));
            }
            else if (type.equals(DataTypes.FloatType)) {
                int[] specials = {0x80000000, 0, 0x7fc00000, 0x7f800001, 0xffc00000, 0x7f800000};
                values.putInt(random.nextInt(3) == 0 ? specials[random.nextInt(specials.length)] : Float.floatToRawIntBits((random.nextFloat() - 0.5f) * 1000));
            }
            else if (type.equals(DataTypes.DoubleType)) {
                long[] specials = {0x8000000000000000L, 0, 0x7ff8000000000000L, 0x7ff0000000000001L, 0xfff8000000000000L};
                values.putLong(random.nextInt(3) == 0 ? specials[random.nextInt(specials.length)] : Double.doubleToRawLongBits((random.nextDouble() - 0.5) * 1e6));
            }
            else if (width == 4) {
                values.putInt(type.equals(DataTypes.DateType) ? random.nextInt(80_000) - 20_000 : random.nextInt(5) == 0 ? random.nextInt(10) : random.nextInt());
            }
            else if (width == 8) {
                values.putLong(type.equals(DataTypes.LongType) ? random.nextLong() : random.nextLong() % 4_000_000_000_000_000L);
            }
            else if (width == 2) {
                values.putShort((short) random.nextInt());
            }
            else {
                throw new IllegalArgumentException("no generator for " + type);
            }
        }
        return new Column(field, validity, values.array(), null, nulls);
    }

    // 0..13 characters: every tail length of hashUnsafeBytes, with two- and three-byte UTF-8 characters.
    private static String text(Random random)
    {
        String alphabet = "abcXYZ09é€ß-";
        StringBuilder text = new StringBuilder();
        int length = random.nextInt(14);
        for (int i = 0; i < length; i++) {
            text.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return text.toString();
    }

    static BigInteger decimal(Random random, DecimalType type)
    {
        int choice = random.nextInt(6);
        if (choice == 0) {
            return BigInteger.ZERO;
        }
        if (choice == 1) {
            return BigInteger.valueOf(random.nextInt(3) - 1);
        }
        BigInteger limit = BigInteger.TEN.pow(type.precision());
        BigInteger value = new BigInteger(limit.bitLength() + 8, random).mod(limit);
        if (choice == 2) {
            value = value.mod(BigInteger.valueOf(1 << 15));
        }
        return random.nextBoolean() ? value.negate() : value;
    }

    static byte[] decimalBytes(BigInteger value)
    {
        byte[] bigEndian = value.toByteArray();
        byte[] little = new byte[16];
        Arrays.fill(little, value.signum() < 0 ? (byte) 0xFF : 0);
        for (int i = 0; i < bigEndian.length; i++) {
            little[i] = bigEndian[bigEndian.length - 1 - i];
        }
        return little;
    }

    static boolean valid(byte[] validity, int row)
    {
        return ((validity[row >> 3] >> (row & 7)) & 1) != 0;
    }

    DeviceBatch upload(DeviceTarget target)
    {
        List<DeviceColumn> device = new ArrayList<>();
        for (Column column : columns) {
            List<byte[]> buffers = new ArrayList<>();
            buffers.add(column.validity());
            if (column.offsets() != null) {
                ByteBuffer offsets = ByteBuffer.allocate(4 * (rows + 1)).order(ByteOrder.LITTLE_ENDIAN);
                Arrays.stream(column.offsets()).forEach(offsets::putInt);
                buffers.add(offsets.array());
            }
            buffers.add(column.values());
            List<DeviceBuffer> deviceBuffers = new ArrayList<>();
            List<Long> lengths = new ArrayList<>();
            for (byte[] bytes : buffers) {
                DeviceBuffer buffer = target.runtime().deviceAllocator(target.device()).allocate(Math.max(8, (bytes.length + 7) & ~7L));
                target.stream().copyFromHost(ByteBuffer.allocateDirect(bytes.length).put(bytes).flip(), buffer, 0);
                deviceBuffers.add(buffer);
                lengths.add((long) bytes.length);
            }
            device.add(new DeviceColumn(column.field().name(), column.field().dataType(), column.nullCount(), deviceBuffers, lengths));
        }
        target.stream().synchronize();
        return new DeviceBatch(target.device(), rows, device);
    }

    List<PartitionReference.HostKey> keys(int[] keyColumns)
    {
        List<PartitionReference.HostKey> keys = new ArrayList<>();
        for (int index : keyColumns) {
            Column column = columns.get(index);
            keys.add(new PartitionReference.HostKey(RepartitionTypes.keyKind(column.field().dataType()).orElseThrow(), column.validity(), column.values(), column.offsets()));
        }
        return keys;
    }

    /** Downloads one output column's buffers. */
    static List<byte[]> download(DeviceColumn column, DeviceTarget target)
    {
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < column.buffers().size(); i++) {
            int length = Math.toIntExact(column.lengths().get(i));
            ByteBuffer host = ByteBuffer.allocateDirect(length);
            target.stream().copyToHost(column.buffers().get(i), 0, host);
            target.stream().synchronize();
            byte[] bytes = new byte[length];
            host.flip().get(bytes);
            out.add(bytes);
        }
        return out;
    }

    /**
     * This batch, uploaded to {@code target} and repartitioned there by {@code repartitioner} on
     * {@code keys}, comes out as {@link PartitionReference} puts it ({@link #check}); every output
     * batch and the upload are closed after.
     */
    void checkRepartition(DeviceBatchRepartitioner repartitioner, DeviceTarget target, int[] keys, int partitions)
    {
        int[] expected = PartitionReference.partitionIds(keys(keys), rows, partitions);
        try (DeviceBatch batch = upload(target)) {
            List<DeviceBatch> outputs = repartitioner.repartition(batch, keys, partitions);
            try {
                check(outputs, expected, partitions, target);
            }
            finally {
                outputs.forEach(DeviceBatch::close);
            }
        }
    }

    /**
     * {@code outputs} hold, partition after partition, the rows {@code expectedIds} assign them in
     * input order, with each column's validity, values and string bytes equal to the input row's.
     */
    void check(List<DeviceBatch> outputs, int[] expectedIds, int partitions, DeviceTarget target)
    {
        assertEquals(partitions, outputs.size(), "partitions");
        int[] order = PartitionReference.stableOrder(expectedIds, partitions);
        int next = 0;
        for (int p = 0; p < partitions; p++) {
            DeviceBatch batch = outputs.get(p);
            int partition = p;
            int count = (int) Arrays.stream(expectedIds).filter(id -> id == partition).count();
            assertEquals(count, batch.rows(), "rows of partition " + p);
            for (int c = 0; c < columns.size(); c++) {
                Column input = columns.get(c);
                List<byte[]> buffers = download(batch.columns().get(c), target);
                int nulls = 0;
                for (int i = 0; i < count; i++) {
                    int row = order[next + i];
                    String where = "partition " + p + " row " + i + " (input row " + row + ") column " + input.field().name();
                    boolean valid = valid(input.validity(), row);
                    assertEquals(valid, valid(buffers.get(0), i), "validity of " + where);
                    if (!valid) {
                        nulls++;
                        continue;
                    }
                    if (input.offsets() != null) {
                        ByteBuffer offsets = ByteBuffer.wrap(buffers.get(1)).order(ByteOrder.LITTLE_ENDIAN);
                        byte[] got = Arrays.copyOfRange(buffers.get(2), offsets.getInt(4 * i), offsets.getInt(4 * i + 4));
                        assertArrayEquals(Arrays.copyOfRange(input.values(), input.offsets()[row], input.offsets()[row + 1]), got, "bytes of " + where);
                    }
                    else if (input.field().dataType().equals(DataTypes.BooleanType)) {
                        assertEquals(valid(input.values(), row), valid(buffers.get(1), i), "value of " + where);
                    }
                    else {
                        int width = RepartitionTypes.width(input.field().dataType());
                        assertArrayEquals(Arrays.copyOfRange(input.values(), row * width, row * width + width), Arrays.copyOfRange(buffers.get(1), i * width, i * width + width),
                                "value of " + where);
                    }
                }
                assertEquals(nulls, batch.columns().get(c).nullCount(), "null count of partition " + p + " column " + input.field().name());
            }
            next += count;
        }
        assertEquals(rows, next, "every row is in one partition");
    }
}
