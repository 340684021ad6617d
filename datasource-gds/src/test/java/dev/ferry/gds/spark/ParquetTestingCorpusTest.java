package dev.ferry.gds.spark;

import dev.ferry.gds.RowRendering;
import dev.ferry.gds.TestingFiles;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
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
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every file of {@code parquet-testing/data} either reads exactly as {@code spark.read.parquet}
 * reads it, or is refused with a clear error; the refused files and their reasons are listed here so
 * a regression (or an improvement) shows.
 */
class ParquetTestingCorpusTest
        extends GdsSparkTest
{
    // File -> what the refusal must say. Everything else must match Spark row for row.
    private static final Map<String, String> REFUSED = Map.ofEntries(
            Map.entry("byte_stream_split_extended.gzip.parquet", "FLOAT16"),
            Map.entry("float16_nonzeros_and_nans.parquet", "FLOAT16"),
            Map.entry("float16_zeros_and_nans.parquet", "FLOAT16"),
            Map.entry("floating_orders_nan_count.parquet", "FLOAT16"),
            Map.entry("map_no_value.parquet", "Invalid map type"),
            // BROTLI decodes (brotli4j), but this file's dictionary page is 1 GiB uncompressed, over spark.ferry.gds.io.maxPageBytes.
            Map.entry("large_string_map.brotli.parquet", "A BROTLI page claims 1073741828 uncompressed bytes; the limit is"),
            Map.entry("nation.dict-malformed.parquet", "Malformed Parquet file"),
            Map.entry("non_hadoop_lz4_compressed.parquet", "cannot read the first page of column c0"),
            Map.entry("unknown-logical-type.parquet", "cannot read the footer"),
            Map.entry("encrypt_columns_and_footer.parquet.encrypted", "encrypted and no decryption keys"),
            Map.entry("encrypt_columns_and_footer_aad.parquet.encrypted", "encrypted and no decryption keys"),
            Map.entry("encrypt_columns_and_footer_bloom_filter.parquet.encrypted", "encrypted and no decryption keys"),
            Map.entry("encrypt_columns_and_footer_ctr.parquet.encrypted", "encrypted and no decryption keys"),
            Map.entry("encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted", "encrypted and no decryption keys"),
            Map.entry("encrypt_columns_plaintext_footer.parquet.encrypted", "Illegal Parquet type: INT32 (TIME(MILLIS,true))"),
            Map.entry("external_key_material_java.parquet.encrypted", "encrypted and no decryption keys"),
            Map.entry("uniform_encryption.parquet.encrypted", "encrypted and no decryption keys"));

    @Test
    void everyFileMatchesSparkOrIsRefusedClearly()
            throws Exception
    {
        Path data = TestingFiles.parquetTesting().resolve("data");
        List<Path> files;
        try (Stream<Path> listing = Files.list(data)) {
            files = listing.filter(path -> path.getFileName().toString().contains(".parquet")).sorted().toList();
        }
        assertTrue(files.size() > 60, "expected the parquet-testing corpus, found " + files.size() + " files in " + data);

        Map<String, String> refused = new ConcurrentSkipListMap<>();
        List<String> problems = new CopyOnWriteArrayList<>();
        AtomicInteger matched = new AtomicInteger();
        // Tiny jobs are latency-bound: several files in flight keep both cores busy.
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> checks = new ArrayList<>();
            for (Path file : files) {
                checks.add(pool.submit(() -> check(file, refused, problems, matched)));
            }
            for (Future<?> check : checks) {
                check.get();
            }
        }
        finally {
            pool.shutdownNow();
        }
        assertEquals(List.of(), problems.stream().sorted().toList(), "refusals: " + refused);
        assertEquals(files.size() - REFUSED.size(), matched.get());
        assertEquals(REFUSED.keySet(), refused.keySet());
    }

    private static void check(Path file, Map<String, String> refused, List<String> problems, AtomicInteger matched)
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
            String message = fullMessage(e);
            refused.put(name, message);
            if (!REFUSED.containsKey(name)) {
                problems.add(name + ": refused unexpectedly: " + message);
            }
            else if (!message.contains(REFUSED.get(name)) || !message.contains(name)) {
                problems.add(name + ": refusal should name the file and say '" + REFUSED.get(name) + "' but says: " + message);
            }
            return;
        }
        if (REFUSED.containsKey(name)) {
            problems.add(name + ": expected a refusal (" + REFUSED.get(name) + ") but it was read; update REFUSED if it now matches Spark");
        }
        Optional<Oracle> oracle = oracle(file);
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
    private static Optional<Oracle> oracle(Path file)
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

    private static String fullMessage(Throwable error)
    {
        StringBuilder message = new StringBuilder();
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            message.append(cause.getMessage()).append(" | ");
        }
        return message.toString().replace('\n', ' ');
    }
}
