package dev.ferry.examples.bench.shuffle;

import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;

import dev.ferry.shuffle.format.ChecksumAlgorithm;
import dev.ferry.shuffle.format.CompressionKind;
import dev.ferry.shuffle.format.EncodingSettings;
import dev.ferry.shuffle.format.MapOutputEncoder;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The map side's row-to-Arrow encoding alone, one thread, no Spark job: the rows of the shuffle
 * benchmark's fact table (as UnsafeRows, what Spark's row operators hand the exchange) dealt over
 * 200 reduce partitions by a hash of the key, encoded with rows appended to per-partition batches
 * directly and with the row stage, alternating, in one run. Prints the median time per row of
 * each and the bytes each wrote. Not a test.
 *
 * <p>Run: {@code java -cp "examples/target/classes:$(cat target/ferry-classpath.txt)"
 * dev.ferry.examples.bench.shuffle.MapEncoderBenchmark [rows] [runs]}
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
    private static final int PARTITIONS = 200;

    private MapEncoderBenchmark() {}

    public static void main(String[] args)
            throws IOException
    {
        int rowCount = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        List<UnsafeRow> rows = rows(rowCount);
        int[] partitionOf = new int[rowCount];
        for (int i = 0; i < rowCount; i++) {
            partitionOf[i] = Math.floorMod(Long.hashCode(rows.get(i).getLong(1) * 0x9E3779B97F4A7C15L), PARTITIONS);
        }
        EncodingSettings staged = new EncodingSettings(CompressionKind.ZSTD, 1, 512, 4 << 20, 64L << 20, ChecksumAlgorithm.CRC32C, true);
        EncodingSettings direct = staged.withRowStaging(false);
        long[] stagedNanos = new long[runs];
        long[] directNanos = new long[runs];
        long[] bytes = new long[2];
        // One warm-up of each, then alternate which goes first.
        encode(rows, partitionOf, staged);
        encode(rows, partitionOf, direct);
        for (int run = 0; run < runs; run++) {
            boolean stagedFirst = run % 2 == 0;
            long[] first = encode(rows, partitionOf, stagedFirst ? staged : direct);
            long[] second = encode(rows, partitionOf, stagedFirst ? direct : staged);
            long[] stagedResult = stagedFirst ? first : second;
            long[] directResult = stagedFirst ? second : first;
            stagedNanos[run] = stagedResult[0];
            directNanos[run] = directResult[0];
            bytes[0] = stagedResult[1];
            bytes[1] = directResult[1];
        }
        double stagedMedian = median(stagedNanos);
        double directMedian = median(directNanos);
        System.out.printf(Locale.ROOT, "%,d rows over %d partitions, %d runs after a warm-up (medians)%n", rowCount, PARTITIONS, runs);
        System.out.printf(Locale.ROOT, "direct  %7.1f ns/row  %,d bytes%n", directMedian / rowCount, bytes[1]);
        System.out.printf(Locale.ROOT, "staged  %7.1f ns/row  %,d bytes%n", stagedMedian / rowCount, bytes[0]);
        System.out.printf(Locale.ROOT, "direct / staged time %.2fx, staged / direct bytes %.2fx%n", directMedian / stagedMedian, (double) bytes[0] / bytes[1]);
    }

    /** Returns {nanoseconds, bytes written}. */
    private static long[] encode(List<UnsafeRow> rows, int[] partitionOf, EncodingSettings settings)
            throws IOException
    {
        try (BufferAllocator allocator = new RootAllocator();
                MapOutputEncoder encoder = new MapOutputEncoder(FACT, PARTITIONS, allocator, settings)) {
            long start = System.nanoTime();
            for (int i = 0; i < rows.size(); i++) {
                encoder.append(partitionOf[i], rows.get(i));
            }
            encoder.finish();
            long nanos = System.nanoTime() - start;
            return new long[] {nanos, Arrays.stream(encoder.blockLengths()).sum()};
        }
    }

    private static List<UnsafeRow> rows(int count)
    {
        Random random = new Random(42);
        UnsafeProjection projection = UnsafeProjection.create(FACT);
        List<UnsafeRow> rows = new ArrayList<>(count);
        for (long id = 0; id < count; id++) {
            rows.add(projection.apply(new GenericInternalRow(new Object[] {
                    id,
                    (long) random.nextInt(200_000),
                    random.nextInt(100_000),
                    random.nextDouble(),
                    Decimal.apply(BigDecimal.valueOf(random.nextInt(10_000_000), 2), 12, 2),
                    random.nextInt(3) == 0,
                    UTF8String.fromString("name-" + random.nextInt(50_000)),
                    UTF8String.fromString(Long.toHexString(random.nextLong()) + Long.toHexString(random.nextLong())),
                    random.nextInt(1500) + 18262,
                    1_600_000_000_000_000L + id * 1_000_003L,
                    random.nextInt(10) == 0 ? null : Decimal.apply(BigDecimal.valueOf(random.nextLong(), 2), 22, 2),
            })).copy());
        }
        return rows;
    }

    private static double median(long[] values)
    {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
    }
}
