package dev.ferry.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Ferry deployed the way users deploy it: a real Spark standalone cluster (a Master and two Worker
 * JVMs on loopback, executors launched by the workers from a laid-out {@code SPARK_HOME}), and the
 * ETL example submitted through {@code SparkSubmit} with the single plugin jar on {@code --jars} and
 * the documented {@code --conf} flags. Asserts the job succeeds, ran Ferry's exchange with blocks
 * crossing executor JVMs over Ferry's TCP transport, and wrote the same rows as with Ferry switched off.
 */
class TestStandaloneDeployment
{
    private static final String ETL_JOB = "dev.ferry.examples.etl.EtlJob";
    private static final String PREFIX = "ferry-etl: ";
    private static final long SUBMIT_TIMEOUT_SECONDS = 180;
    private static final Pattern EXCHANGES = Pattern.compile("^" + PREFIX + "exchanges ferry=(\\d+) spark=(\\d+) bytesWritten=(\\d+)(.*)$", Pattern.MULTILINE);
    private static final Pattern RESULT = Pattern.compile("^" + PREFIX + "result (rows=(\\d+) .*)$", Pattern.MULTILINE);

    @Test
    @Timeout(value = 360, unit = TimeUnit.SECONDS)
    void etlJobRunsOnAStandaloneClusterWithThePluginJar()
            throws IOException, InterruptedException
    {
        Path directory = Files.createDirectories(Path.of("target", "standalone").toAbsolutePath());
        Path pluginJar = ExampleJars.pluginJar(directory);
        Path applicationJar = ExampleJars.examplesJar(directory, "dev.ferry.examples.etl.EtlJob");
        Path input = directory.resolve("input");
        try (StandaloneCluster cluster = StandaloneCluster.start(directory, 2, 1, "1g", 120)) {
            Submit ferry = submit(cluster, directory, "ferry", pluginJar, applicationJar, true, input, List.of("--generate", "20000"));
            Submit plain = submit(cluster, directory, "spark", pluginJar, applicationJar, false, input, List.of());

            Matcher ferryExchanges = find(EXCHANGES, ferry);
            assertTrue(Integer.parseInt(ferryExchanges.group(1)) > 0, "Ferry's exchange did not run:\n" + ferry.output());
            assertEquals("0", ferryExchanges.group(2), "Spark's exchange ran although Ferry is on:\n" + ferry.output());
            assertTrue(Long.parseLong(ferryExchanges.group(3)) > 0, "Ferry's shuffle wrote no bytes:\n" + ferry.output());
            // Two executor JVMs on one host and no topology file: each probes its node and reports it to the driver, so
            // blocks read by the other executor go through shared memory (HOST_SHM), not TCP.
            assertTrue(routeBytes(ferryExchanges.group(4), "HOST_SHM") > 0, "No block crossed executors over HOST_SHM (the probed same-node route):\n" + ferry.output());
            assertEquals(0, routeBytes(ferryExchanges.group(4), "TCP"), "Blocks between two executors of one host went over TCP although their probed node is the same:\n" + ferry.output());
            assertTrue(ferry.output().contains("FerryColumnarExchange"), "The printed plan has no FerryColumnarExchange:\n" + ferry.output());

            Matcher plainExchanges = find(EXCHANGES, plain);
            assertEquals("0", plainExchanges.group(1), "spark.ferry.enabled=false still used Ferry's exchange:\n" + plain.output());
            assertTrue(Integer.parseInt(plainExchanges.group(2)) > 0, "Spark's exchange did not run:\n" + plain.output());

            Matcher ferryResult = find(RESULT, ferry);
            Matcher plainResult = find(RESULT, plain);
            assertTrue(Long.parseLong(ferryResult.group(2)) > 0, "The job wrote no rows:\n" + ferry.output());
            assertEquals(plainResult.group(1), ferryResult.group(1), "Ferry and Spark's shuffle wrote different rows");
        }
    }

    private record Submit(String name, String output)
    {
    }

    /** {@code spark-submit} in a child JVM, client mode, as a user runs it; fails with its output unless it exits 0 in time. */
    private static Submit submit(StandaloneCluster cluster, Path directory, String name, Path pluginJar, Path applicationJar, boolean ferry, Path input, List<String> extra)
            throws IOException, InterruptedException
    {
        List<String> arguments = new ArrayList<>(List.of(
                "org.apache.spark.deploy.SparkSubmit",
                "--master", cluster.masterUrl(),
                "--deploy-mode", "client",
                "--name", "ferry-etl-" + name,
                "--class", ETL_JOB,
                "--jars", pluginJar.toString(),
                "--conf", "spark.plugins=dev.ferry.FerryPlugin",
                "--conf", "spark.shuffle.manager=dev.ferry.shuffle.FerryShuffleManager",
                "--conf", "spark.ferry.enabled=" + ferry,
                "--conf", "spark.executor.cores=1",
                "--conf", "spark.cores.max=2",
                "--conf", "spark.executor.memory=512m",
                "--conf", "spark.executor.extraJavaOptions=" + FerrySessions.EXECUTOR_JVM_OPTIONS,
                "--conf", "spark.driver.host=" + StandaloneCluster.HOST,
                "--conf", "spark.driver.bindAddress=" + StandaloneCluster.HOST,
                "--conf", "spark.ui.enabled=false",
                "--conf", "spark.sql.shuffle.partitions=4",
                // Both executors before the first job, so blocks really cross executor JVMs.
                "--conf", "spark.scheduler.minRegisteredResourcesRatio=1.0",
                "--conf", "spark.scheduler.maxRegisteredResourcesWaitingTime=90s",
                applicationJar.toString(),
                input.toString(),
                directory.resolve("output-" + name).toString()));
        arguments.addAll(extra);
        Path log = directory.resolve("logs/submit-" + name + ".log");
        Process process = cluster.launch("768m", log, arguments);
        if (!process.waitFor(SUBMIT_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            StandaloneCluster.destroyTree(process.toHandle());
            throw new AssertionError("spark-submit (" + name + ") did not finish within " + SUBMIT_TIMEOUT_SECONDS + " s; its output:\n" + StandaloneCluster.tail(log));
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), "spark-submit (" + name + ") failed:\n" + StandaloneCluster.tail(log));
        return new Submit(name, output);
    }

    private static Matcher find(Pattern pattern, Submit submit)
    {
        Matcher matcher = pattern.matcher(submit.output());
        assertTrue(matcher.find(), "No line matching " + pattern + " in the output of " + submit.name() + ":\n" + submit.output());
        return matcher;
    }

    private static long routeBytes(String routes, String route)
    {
        Matcher matcher = Pattern.compile("route\\." + route + "=(\\d+)").matcher(routes);
        return matcher.find() ? Long.parseLong(matcher.group(1)) : 0;
    }
}
