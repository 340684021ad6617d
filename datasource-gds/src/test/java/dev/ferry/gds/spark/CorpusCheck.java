package dev.ferry.gds.spark;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ferry.gds.RowRendering;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;

import static java.util.Objects.requireNonNull;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Checks a corpus of Parquet files: each must read through {@code gds} exactly as Spark reads it
 * (rows and schema), or be refused with an error naming the file and saying what the expected
 * refusal says. Where Spark cannot read a file (a codec it lacks, an encoding its vectorized reader
 * does not take) its parquet-mr row reader is asked, then a twin file with the same rows written
 * differently; with no oracle at all, reading the file is a problem, since nothing vouches for it.
 */
final class CorpusCheck
{
    private final SparkSession spark;
    private final Map<String, String> expectedRefusals;
    private final Map<String, String> twins;
    private final Map<String, String> refused = new ConcurrentSkipListMap<>();
    private final List<String> problems = new CopyOnWriteArrayList<>();
    private final AtomicInteger matched = new AtomicInteger();

    CorpusCheck(SparkSession spark, Map<String, String> expectedRefusals, Map<String, String> twins)
    {
        this.spark = requireNonNull(spark, "spark is null");
        this.expectedRefusals = Map.copyOf(expectedRefusals);
        this.twins = Map.copyOf(twins);
    }

    /** Checks every file (several in flight: tiny jobs are latency-bound) and fails with every problem found. */
    void checkAll(List<Path> files)
            throws Exception
    {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> checks = new ArrayList<>();
            for (Path file : files) {
                checks.add(pool.submit(() -> check(file)));
            }
            for (Future<?> check : checks) {
                check.get();
            }
        }
        finally {
            pool.shutdownNow();
        }
        assertEquals(List.of(), problems.stream().sorted().toList(), "refusals: " + refused);
        assertEquals(files.size() - expectedRefusals.size(), matched.get());
        assertEquals(expectedRefusals.keySet(), refused.keySet());
    }

    private void check(Path file)
    {
        String name = file.getFileName().toString();
        List<String> ours;
        StructType ourSchema;
        try {
            Dataset<Row> frame = spark.read().format("gds").load(file.toString());
            ourSchema = frame.schema();
            ours = RowRendering.sorted(frame.collectAsList());
        }
        catch (Exception e) {
            String message = ParquetTestingCorpusTestMessages.full(e);
            refused.put(name, message);
            if (!expectedRefusals.containsKey(name)) {
                problems.add(name + ": refused unexpectedly: " + message);
            }
            else if (!message.contains(expectedRefusals.get(name)) || !message.contains(name)) {
                problems.add(name + ": refusal should name the file and say '" + expectedRefusals.get(name) + "' but says: " + message);
            }
            return;
        }
        if (expectedRefusals.containsKey(name)) {
            problems.add(name + ": expected a refusal (" + expectedRefusals.get(name) + ") but it was read; update the refusals if it now matches Spark");
        }
        Optional<Oracle> oracle = oracle(file).or(() -> Optional.ofNullable(twins.get(name)).flatMap(twin -> oracle(file.resolveSibling(twin))));
        if (oracle.isEmpty()) {
            problems.add(name + ": read by gds but Spark cannot read it with either of its readers, so nothing vouches for the answer");
            return;
        }
        if (!ours.equals(oracle.get().rows())) {
            problems.add(name + ": rows differ from spark.read.parquet, first gds row " + ours.stream().findFirst().orElse("-")
                    + " vs " + oracle.get().rows().stream().findFirst().orElse("-"));
            return;
        }
        if (!ourSchema.equals(oracle.get().schema())) {
            problems.add(name + ": schema " + ourSchema.treeString() + " differs from Spark's " + oracle.get().schema().treeString());
            return;
        }
        matched.incrementAndGet();
    }

    /** What Spark reads: its vectorized reader, else its parquet-mr row reader (some files trip only the former). */
    private Optional<Oracle> oracle(Path file)
    {
        try {
            return Optional.of(Oracle.of(spark.read().parquet(file.toString())));
        }
        catch (Exception vectorizedFailure) {
            SparkSession rowReader = spark.newSession();
            rowReader.conf().set("spark.sql.parquet.enableVectorizedReader", "false");
            try {
                return Optional.of(Oracle.of(rowReader.read().parquet(file.toString())));
            }
            catch (Exception rowFailure) {
                return Optional.empty();
            }
        }
    }

    private record Oracle(StructType schema, List<String> rows)
    {
        static Oracle of(Dataset<Row> frame)
        {
            return new Oracle(frame.schema(), RowRendering.sorted(frame.collectAsList()));
        }
    }
}
