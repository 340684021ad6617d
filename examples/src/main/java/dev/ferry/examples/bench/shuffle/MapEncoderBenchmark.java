package dev.ferry.examples.bench.shuffle;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.Locale;
import java.util.Random;

import dev.ferry.examples.bench.Medians;
import dev.ferry.shuffle.ShuffleConfigKeys;
import dev.ferry.shuffle.format.ChecksumAlgorithm;
import dev.ferry.shuffle.format.CompressionKind;
import dev.ferry.shuffle.format.EncodingSettings;
import dev.ferry.shuffle.format.MapOutputEncoder;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.spark.SparkConf;
import org.apache.spark.io.CompressionCodec;
import org.apache.spark.io.LZ4CompressionCodec;
import org.apache.spark.serializer.SerializationStream;
import org.apache.spark.serializer.SerializerInstance;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.execution.UnsafeRowSerializer;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/**
 * The map side's encoding alone, one thread, no Spark job: rows like the shuffle benchmark's fact
 * table, as UnsafeRows (what Spark's row operators hand an exchange), dealt over the reduce
 * partitions (200 by default), encoded by Ferry's {@link MapOutputEncoder} with each codec and by what Spark's
 * bypass-merge-sort writer does per row (Spark's {@code UnsafeRowSerializer} into an LZ4 stream per
 * partition, kept in memory here instead of files). Prints each encoder's median time per row,
 * its bytes, and Spark's time over Ferry's. Not a test.
 *
 * <p>The rows lie one after another in one array and a single UnsafeRow points at each in turn,
 * as an operator's output row is rewritten in place: an encoder reads rows that are in cache. (A
 * list of a million separate row objects made every encoder wait on memory for each row's first
 * read and hid what the encoders themselves cost.)
 *
 * <p>Run: {@code java <Spark's --add-opens flags> -cp "examples/target/classes:$(cat target/ferry-classpath.txt)"
 * dev.ferry.examples.bench.shuffle.MapEncoderBenchmark [rows] [runs] [partitions] [maxBufferedBytes] [zstdLevel] [scatterBufferBytes]}
 * (defaults 1000000, 5, 200, 64 MiB as {@code spark.ferry.shuffle.write.maxBufferedBytes}, 1, 1 MiB as
 * {@code spark.ferry.shuffle.write.scatterBufferBytes}). The "direct" lines append each row straight to its
 * partition's batch, as with {@code scatterBufferBytes} 0.
 */
public final class MapEncoderBenchmark
{
    private static final StructType FACT = new StructType()
            .add("id", DataTypes.LongType)
            .add("k", DataTypes.LongType)
            .add("qty", DataTypes.IntegerType)
            .add("v", DataTypes.DoubleType)
            .add("price", DataTypes.createDecimalType(12, 2))
            .add("flag", DataTypes.BooleanType)
            .add("name", DataTypes.StringType)
            .add("note", DataTypes.StringType)
            .add("day", DataTypes.DateType)
            .add("ts", DataTypes.TimestampType)
            .add("total", DataTypes.createDecimalType(22, 2));
    private MapEncoderBenchmark() {}

    /** How Ferry's encoder is set up for a run. */
    private record Setup(int partitions, long maxBufferedBytes, int zstdLevel, long scatterBufferBytes) {}

    /** One way of encoding the rows; returns the bytes it produced. */
    private interface Encoder
    {
        long encode(PackedRows rows)
                throws IOException;
    }

    public static void main(String[] args)
            throws IOException
    {
        int rowCount = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        Setup setup = new Setup(args.length > 2 ? Integer.parseInt(args[2]) : 200,
                args.length > 3 ? Long.parseLong(args[3]) : 64L << 20,
                args.length > 4 ? Integer.parseInt(args[4]) : 1,
                args.length > 5 ? Long.parseLong(args[5]) : ShuffleConfigKeys.SCATTER_BUFFER_BYTES.defaultValue());
        PackedRows rows = PackedRows.generate(rowCount, setup.partitions());
        // The last two append each row straight to its partition's batch (no scatter buffer): run in
        // the same rotation as the others, they show what the buffer does under the same load.
        Setup direct = new Setup(setup.partitions(), setup.maxBufferedBytes(), setup.zstdLevel(), 0);
        String[] names = {"spark lz4", "ferry zstd", "ferry lz4", "ferry none", "ferry lz4, direct", "ferry none, direct"};
        Encoder[] encoders = {
                packed -> sparkRows(packed, setup.partitions()),
                packed -> ferry(packed, CompressionKind.ZSTD, setup),
                packed -> ferry(packed, CompressionKind.LZ4, setup),
                packed -> ferry(packed, CompressionKind.NONE, setup),
                packed -> ferry(packed, CompressionKind.LZ4, direct),
                packed -> ferry(packed, CompressionKind.NONE, direct)};
        long[][] nanos = new long[encoders.length][runs];
        long[] bytes = new long[encoders.length];
        for (Encoder encoder : encoders) {
            encoder.encode(rows);
        }
        for (int run = 0; run < runs; run++) {
            // Rotate the order, so that no encoder always runs right after the same one.
            for (int step = 0; step < encoders.length; step++) {
                int i = (step + run) % encoders.length;
                long start = System.nanoTime();
                bytes[i] = encoders[i].encode(rows);
                nanos[i][run] = System.nanoTime() - start;
            }
        }
        double spark = Medians.of(nanos[0]);
        System.out.printf(Locale.ROOT, "%,d rows over %d partitions, %d runs after a warm-up (medians); maxBufferedBytes %,d, zstd level %d, scatterBufferBytes %,d%n",
                rowCount, setup.partitions(), runs, setup.maxBufferedBytes(), setup.zstdLevel(), setup.scatterBufferBytes());
        for (int i = 0; i < encoders.length; i++) {
            double median = Medians.of(nanos[i]);
            System.out.printf(Locale.ROOT, "%-18s %7.1f ns/row  %,13d bytes  spark/this %.2fx%n", names[i], median / rowCount, bytes[i], spark / median);
        }
    }

    private static long ferry(PackedRows rows, CompressionKind codec, Setup setup)
            throws IOException
    {
        EncodingSettings settings = new EncodingSettings(codec, setup.zstdLevel(), 512, 4 << 20, setup.maxBufferedBytes(), ChecksumAlgorithm.CRC32C, setup.scatterBufferBytes());
        UnsafeRow row = new UnsafeRow(FACT.size());
        try (BufferAllocator allocator = new RootAllocator();
                MapOutputEncoder encoder = new MapOutputEncoder(FACT, setup.partitions(), allocator, settings)) {
            for (int i = 0; i < rows.count(); i++) {
                rows.point(row, i);
                encoder.append(rows.partitions[i], row);
            }
            encoder.finish();
            return Arrays.stream(encoder.blockLengths()).sum();
        }
    }

    /** Spark's per-row work in its bypass-merge-sort writer, minus the files. */
    private static long sparkRows(PackedRows rows, int partitions)
            throws IOException
    {
        CompressionCodec lz4 = new LZ4CompressionCodec(new SparkConf(false));
        SerializerInstance serializer = new UnsafeRowSerializer(FACT.size(), null).newInstance();
        ByteArrayOutputStream[] outputs = new ByteArrayOutputStream[partitions];
        SerializationStream[] streams = new SerializationStream[partitions];
        for (int p = 0; p < partitions; p++) {
            outputs[p] = new ByteArrayOutputStream(1 << 16);
            streams[p] = serializer.serializeStream(lz4.compressedOutputStream(outputs[p]));
        }
        ClassTag<UnsafeRow> rowTag = ClassTag$.MODULE$.apply(UnsafeRow.class);
        UnsafeRow row = new UnsafeRow(FACT.size());
        for (int i = 0; i < rows.count(); i++) {
            rows.point(row, i);
            streams[rows.partitions[i]].writeValue(row, rowTag);
        }
        long bytes = 0;
        for (int p = 0; p < partitions; p++) {
            streams[p].close();
            bytes += outputs[p].size();
        }
        return bytes;
    }

    private record PackedRows(byte[] bytes, long[] offsets, int[] sizes, int[] partitions)
    {
        int count()
        {
            return offsets.length;
        }

        void point(UnsafeRow row, int index)
        {
            row.pointTo(bytes, offsets[index], sizes[index]);
        }

        static PackedRows generate(int count, int partitionCount)
        {
            Random random = new Random(42);
            UnsafeProjection projection = UnsafeProjection.create(FACT);
            ByteArrayOutputStream packed = new ByteArrayOutputStream(count * 160);
            long[] offsets = new long[count];
            int[] sizes = new int[count];
            int[] partitions = new int[count];
            byte[] scratch = new byte[1024];
            for (int id = 0; id < count; id++) {
                long key = random.nextInt(200_000);
                UnsafeRow row = projection.apply(new GenericInternalRow(new Object[] {
                        (long) id,
                        key,
                        random.nextInt(100_000),
                        random.nextDouble(),
                        Decimal.apply(BigDecimal.valueOf(random.nextInt(10_000_000), 2), 12, 2),
                        random.nextInt(3) == 0,
                        UTF8String.fromString("name-" + random.nextInt(50_000)),
                        UTF8String.fromString(Long.toHexString(random.nextLong()) + Long.toHexString(random.nextLong())),
                        random.nextInt(1500) + 18262,
                        1_600_000_000_000_000L + id * 1_000_003L,
                        random.nextInt(10) == 0 ? null : Decimal.apply(BigDecimal.valueOf(random.nextLong(), 2), 22, 2)}));
                offsets[id] = Platform.BYTE_ARRAY_OFFSET + packed.size();
                sizes[id] = row.getSizeInBytes();
                row.writeToMemory(scratch, Platform.BYTE_ARRAY_OFFSET);
                packed.write(scratch, 0, sizes[id]);
                partitions[id] = Math.floorMod(Long.hashCode(key * 0x9E3779B97F4A7C15L), partitionCount);
            }
            return new PackedRows(packed.toByteArray(), offsets, sizes, partitions);
        }
    }
}
