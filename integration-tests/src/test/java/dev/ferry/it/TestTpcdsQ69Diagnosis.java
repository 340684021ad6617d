package dev.ferry.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The TPC-DS q69 measurement behind docs/benchmarks.md#memory-under-pressure-2026-12-02 (not in
 * CI: it wants executors of up to 2 GB): q69 of Spark's own TPC-DS suite (or the queries of
 * {@code -Dferry.it.q69.queries}) over scale-0.1 data from Trino's generator, in
 * {@code local-cluster[2,1,W]} with executors of {@code -Dferry.it.q69.executorMemory} (default
 * 2048m), {@code -Dferry.it.q69.runs} times, Ferry on (tables read with gds, Ferry's exchange)
 * and off ({@code -Dferry.it.q69.modes}); prints per run whether it succeeded and the task memory
 * figures, writes the executors' GC logs (and with {@code -Dferry.it.q69.histograms=true} live
 * heap histograms) under target/q69-gc. Every run that succeeds returns the same rows.
 *
 * <pre>
 * mvn -B -o -pl integration-tests verify -Dtest=TestTpcdsQ69Diagnosis -Dferry.it.q69=true -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 */
class TestTpcdsQ69Diagnosis
{
    static final List<String> Q69_TABLES = List.of("customer", "customer_address", "customer_demographics", "store_sales", "web_sales", "catalog_sales", "date_dim");

    @Test
    @EnabledIfSystemProperty(named = "ferry.it.q69", matches = "true")
    void q69FerryOnAndOff()
            throws Exception
    {
        String executorMemory = System.getProperty("ferry.it.q69.executorMemory", "2048m");
        int runs = Integer.getInteger("ferry.it.q69.runs", 2);
        int workerMb = (int) (Long.parseLong(executorMemory.replaceAll("[^0-9]", "")) * (executorMemory.endsWith("g") ? 1024 : 1));
        Path data = Paths.get("target", "tpcds-sf0.1").toAbsolutePath();
        Path gcLogs = Paths.get("target", "q69-gc").toAbsolutePath();
        Files.createDirectories(gcLogs);
        SparkSession.Builder builder = SparkSession.builder()
                .master("local-cluster[2,1," + workerMb + "]")
                .appName("ferry-q69")
                .config("spark.shuffle.manager", "dev.ferry.shuffle.FerryShuffleManager")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.adaptive.enabled", "true");
        String extra = System.getProperty("ferry.it.q69.conf", "");
        for (String setting : extra.split(",")) {
            if (!setting.isBlank()) {
                String[] kv = setting.split("=", 2);
                builder.config(kv[0], kv[1]);
            }
        }
        SparkSession spark = FerrySessions.localCluster(builder, executorMemory,
                "-Xss4m -Xlog:gc:file=" + gcLogs + "/gc-%p.log " + System.getProperty("ferry.it.q69.javaOptions", ""));
        TaskMemoryListener memory = new TaskMemoryListener();
        spark.sparkContext().addSparkListener(memory);
        try {
            long started = System.nanoTime();
            TpcdsTables.generate(spark, data, 0.1, Q69_TABLES, 4);
            System.out.printf("q69: data under %s (%.1f s)%n", data, (System.nanoTime() - started) / 1e9);
            // q10 and q35 broadcast customer_demographics too, over the same tables: run in one session,
            // each leaves its deserialized relation in the executors' block managers until the driver cleans it.
            List<String> names = List.of(System.getProperty("ferry.it.q69.queries", "q69").split(","));
            Map<String, List<String>> reference = new HashMap<>();
            for (int run = 0; run < runs; run++) {
                for (String mode : System.getProperty("ferry.it.q69.modes", "true,false").split(",")) {
                    boolean ferry = Boolean.parseBoolean(mode);
                    spark.conf().set("spark.ferry.enabled", String.valueOf(ferry));
                    TpcdsTables.register(spark, data, Q69_TABLES, ferry);
                    for (String name : names) {
                        memory.reset();
                        long start = System.nanoTime();
                        String outcome;
                        try {
                            Dataset<Row> result = spark.sql(query(name));
                            List<String> rows = new ArrayList<>(result.toJSON().collectAsList());
                            List<String> before = reference.putIfAbsent(name, rows);
                            if (before != null) {
                                assertEquals(before, rows, name + " differs between runs (ferry=" + ferry + ")");
                            }
                            outcome = "ok, " + rows.size() + " rows";
                        }
                        catch (RuntimeException e) {
                            String message = String.valueOf(e.getMessage());
                            outcome = "FAILED: " + message.substring(0, Math.min(400, message.length()));
                        }
                        System.out.printf("%s run %d ferry=%s executors=%s: %s in %.1f s; %s%n", name, run, ferry, executorMemory, outcome, (System.nanoTime() - start) / 1e9, memory);
                        if (Boolean.getBoolean("ferry.it.q69.histograms")) {
                            histograms(gcLogs.resolve("histo-" + name + "-run" + run + "-ferry-" + ferry));
                        }
                    }
                }
            }
            System.out.println("q69: executor GC logs in " + gcLogs);
        }
        finally {
            spark.stop();
        }
    }

    /** A live-object class histogram of every executor JVM (local-cluster's executors are this JVM's descendants). */
    private static void histograms(Path prefix)
            throws IOException, InterruptedException
    {
        for (ProcessHandle executor : ProcessHandle.current().descendants().toList()) {
            Path cmdline = Paths.get("/proc", String.valueOf(executor.pid()), "cmdline");
            if (Files.isReadable(cmdline) && new String(Files.readAllBytes(cmdline), StandardCharsets.UTF_8).contains("CoarseGrainedExecutorBackend")) {
                Path out = Paths.get(prefix + "-" + executor.pid() + ".txt");
                new ProcessBuilder("jcmd", String.valueOf(executor.pid()), "GC.class_histogram").redirectOutput(out.toFile()).start().waitFor();
            }
        }
    }

    static String query(String name)
    {
        return QueryTexts.read("/tpcds/" + name + ".sql");
    }
}
