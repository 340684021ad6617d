package dev.ferry.gds.repartition;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.CopyRoute;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceStream;
import dev.ferry.device.partition.PartitionReference;
import dev.ferry.gds.TestingSpark;
import dev.ferry.gds.device.DeviceBatch;
import dev.ferry.gds.device.DeviceTarget;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.spark_partition_id;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Device batches repartitioned on the simulated backend (the partition kernels' emulation on
 * simulated device memory) put every row where Spark's {@code df.repartition(n, keys)} puts it:
 * the partition id of each row equals Spark's {@code spark_partition_id()} after that repartition
 * and Spark's {@code pmod(hash(keys), n)}, for int, bigint, string, date, decimal(10,2),
 * decimal(30,5) keys with nulls and for several keys; each output partition holds its rows in input
 * order, byte for byte. Only a few words of sizes per partition cross to the host.
 */
class TestDeviceRepartitionMatchesSpark
{
    private static final int PARTITIONS = 7;
    private static final int ROWS = 1500;
    private static final List<StructField> FIELDS = List.of(
            DataTypes.createStructField("i", DataTypes.IntegerType, true),
            DataTypes.createStructField("l", DataTypes.LongType, true),
            DataTypes.createStructField("s", DataTypes.StringType, true),
            DataTypes.createStructField("d", DataTypes.DateType, true),
            DataTypes.createStructField("small", DataTypes.createDecimalType(10, 2), true),
            DataTypes.createStructField("large", DataTypes.createDecimalType(30, 5), true),
            DataTypes.createStructField("b", DataTypes.BooleanType, true),
            DataTypes.createStructField("x", DataTypes.DoubleType, true));

    private static SparkSession spark;
    private static DeviceRuntime runtime;
    private static RandomBatch input;
    private static Dataset<Row> frame;

    @BeforeAll
    static void start()
    {
        spark = TestingSpark.start();
        runtime = DeviceRuntime.create(new MapConfigSource(Map.of("spark.ferry.device", "simulated", "spark.ferry.device.simulated.capacity", "64m")));
        input = RandomBatch.generate(new Random(20261203), ROWS, FIELDS);
        frame = sparkFrame(input);
    }

    @AfterAll
    static void stop()
    {
        if (runtime != null) {
            runtime.close();
        }
    }

    @Test
    void intKeys()
    {
        check("i");
    }

    @Test
    void longKeys()
    {
        check("l");
    }

    @Test
    void stringKeys()
    {
        check("s");
    }

    @Test
    void dateKeys()
    {
        check("d");
    }

    @Test
    void smallDecimalKeys()
    {
        check("small");
    }

    @Test
    void largeDecimalKeys()
    {
        check("large");
    }

    @Test
    void twoKeysWithNulls()
    {
        check("s", "i");
        check("large", "d");
    }

    @Test
    void aKeyOfAnUnhashedTypeIsRefusedByName()
    {
        RandomBatch shorts = RandomBatch.generate(new Random(1), 10, List.of(DataTypes.createStructField("tiny", DataTypes.ShortType, true)));
        try (DeviceStream stream = runtime.newStream(0)) {
            DeviceTarget target = new DeviceTarget(runtime, 0, stream);
            try (DeviceBatch batch = shorts.upload(target)) {
                IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> DeviceBatchRepartitioner.forTarget(target).repartition(batch, new int[] {0}, 3));
                assertTrue(refused.getMessage().contains("tiny") && refused.getMessage().contains("smallint"), refused.getMessage());
            }
        }
    }

    private static void check(String... keys)
    {
        int[] keyColumns = Arrays.stream(keys).mapToInt(TestDeviceRepartitionMatchesSpark::index).toArray();
        int[] sparkIds = sparkPartitionIds(keys);
        int[] hashIds = pmodHashIds(keys);
        assertArrayEquals(hashIds, sparkIds, "Spark's own pmod(hash(keys), n) against its repartition for " + Arrays.toString(keys));
        assertArrayEquals(PartitionReference.partitionIds(input.keys(keyColumns), ROWS, PARTITIONS), sparkIds, "the Java reference against Spark for " + Arrays.toString(keys));
        assertTrue(Arrays.stream(sparkIds).distinct().count() == PARTITIONS, "every partition gets rows");
        try (DeviceStream stream = runtime.newStream(0)) {
            DeviceTarget target = new DeviceTarget(runtime, 0, stream);
            try (DeviceBatch batch = input.upload(target)) {
                long toHost = runtime.bytesCopied(CopyRoute.DEVICE_TO_HOST);
                long toDevice = runtime.bytesCopied(CopyRoute.HOST_TO_DEVICE);
                DeviceBatchRepartitioner repartitioner = DeviceBatchRepartitioner.forTarget(target);
                List<DeviceBatch> outputs = repartitioner.repartition(batch, keyColumns, PARTITIONS);
                try {
                    // Sizes only: the starts, the error word, null counts per column with nulls, string byte bounds.
                    long expected = 4L * (PARTITIONS + 1) + 4;
                    for (RandomBatch.Column column : input.columns) {
                        expected += column.nullCount() > 0 ? 4L * PARTITIONS : 0;
                        expected += column.offsets() != null ? 4L * (PARTITIONS + 1) : 0;
                    }
                    assertEquals(expected, runtime.bytesCopied(CopyRoute.DEVICE_TO_HOST) - toHost, "device-to-host bytes of the repartition (" + repartitioner.kernels() + ")");
                    assertEquals(0, runtime.bytesCopied(CopyRoute.HOST_TO_DEVICE) - toDevice, "host-to-device bytes of the repartition");
                    input.check(outputs, sparkIds, PARTITIONS, target);
                }
                finally {
                    outputs.forEach(DeviceBatch::close);
                }
            }
        }
        assertEquals(0, runtime.deviceAllocator(0).allocatedBytes(), "every device buffer is freed");
    }

    private static int index(String name)
    {
        for (int i = 0; i < FIELDS.size(); i++) {
            if (FIELDS.get(i).name().equals(name)) {
                return i;
            }
        }
        throw new IllegalArgumentException(name);
    }

    private static int[] sparkPartitionIds(String... keys)
    {
        List<Row> rows = frame.repartition(PARTITIONS, Arrays.stream(keys).map(key -> col(key)).toArray(org.apache.spark.sql.Column[]::new))
                .select(col("idx"), spark_partition_id().as("pid"))
                .collectAsList();
        return ids(rows);
    }

    private static int[] pmodHashIds(String... keys)
    {
        return ids(frame.selectExpr("idx", "pmod(hash(" + String.join(", ", keys) + "), " + PARTITIONS + ") as pid").collectAsList());
    }

    private static int[] ids(List<Row> rows)
    {
        int[] ids = new int[ROWS];
        Arrays.fill(ids, -1);
        for (Row row : rows) {
            ids[Math.toIntExact(row.getLong(0))] = row.getInt(1);
        }
        assertEquals(ROWS, rows.size(), "rows Spark returned");
        assertTrue(Arrays.stream(ids).allMatch(id -> id >= 0), "every row has a partition id");
        return ids;
    }

    // The same rows as a Spark DataFrame: simple types in, then Spark's own casts to date and decimals.
    private static Dataset<Row> sparkFrame(RandomBatch batch)
    {
        List<Row> rows = new ArrayList<>();
        for (int row = 0; row < batch.rows; row++) {
            List<Object> values = new ArrayList<>();
            values.add((long) row);
            for (RandomBatch.Column column : batch.columns) {
                values.add(RandomBatch.valid(column.validity(), row) ? value(column, row) : null);
            }
            rows.add(RowFactory.create(values.toArray()));
        }
        List<StructField> fields = new ArrayList<>();
        fields.add(DataTypes.createStructField("idx", DataTypes.LongType, false));
        List<String> select = new ArrayList<>();
        select.add("idx");
        for (StructField field : FIELDS) {
            if (field.dataType().equals(DataTypes.DateType)) {
                fields.add(DataTypes.createStructField(field.name(), DataTypes.IntegerType, true));
                select.add("date_from_unix_date(" + field.name() + ") as " + field.name());
            }
            else if (field.dataType() instanceof DecimalType decimal) {
                fields.add(DataTypes.createStructField(field.name(), DataTypes.StringType, true));
                select.add("cast(" + field.name() + " as decimal(" + decimal.precision() + ", " + decimal.scale() + ")) as " + field.name());
            }
            else {
                fields.add(field);
                select.add(field.name());
            }
        }
        Dataset<Row> typed = spark.createDataFrame(rows, new StructType(fields.toArray(StructField[]::new))).selectExpr(select.toArray(String[]::new));
        assertEquals(FIELDS.stream().map(field -> field.dataType().simpleString()).collect(Collectors.toList()),
                Arrays.stream(typed.schema().fields()).skip(1).map(field -> field.dataType().simpleString()).collect(Collectors.toList()));
        return typed.cache();
    }

    private static Object value(RandomBatch.Column column, int row)
    {
        ByteBuffer values = ByteBuffer.wrap(column.values()).order(ByteOrder.LITTLE_ENDIAN);
        if (column.offsets() != null) {
            return new String(column.values(), column.offsets()[row], column.offsets()[row + 1] - column.offsets()[row], StandardCharsets.UTF_8);
        }
        if (column.field().dataType() instanceof DecimalType decimal) {
            return new BigDecimal(PartitionReference.unscaled(column.values(), row), decimal.scale()).toPlainString();
        }
        if (column.field().dataType().equals(DataTypes.BooleanType)) {
            return RandomBatch.valid(column.values(), row);
        }
        if (column.field().dataType().equals(DataTypes.DoubleType)) {
            return values.getDouble(8 * row);
        }
        if (column.field().dataType().equals(DataTypes.LongType)) {
            return values.getLong(8 * row);
        }
        return values.getInt(4 * row);
    }
}
