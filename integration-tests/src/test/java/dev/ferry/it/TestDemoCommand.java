package dev.ferry.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.spark.launcher.JavaModuleOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code bin/ferry demo}'s entry point as a user runs it: a fresh JVM, a small dataset, four executors on the simulated DGX cluster, both ways, the summary and the report. */
class TestDemoCommand
{
    private static final long TIMEOUT_SECONDS = 600;

    private record Run(int exitCode, String stdout, String stderr)
    {
    }

    /**
     * JVM options for the runs that check one thing of the command (argument errors, reusing the data) rather than
     * running it as a user does: serial GC and C1 only (a short run on CI's two cores, as the demo's own executors), and
     * for a Spark run Spark's module options, so the command runs Spark in this JVM instead of relaunching itself
     * (the first run of the full test keeps the relaunch, as {@code bin/ferry demo} starts it).
     */
    private static List<String> quickJvm(boolean spark)
    {
        List<String> options = new ArrayList<>(List.of(FerrySessions.EXECUTOR_JVM_OPTIONS.split(" ")));
        if (spark) {
            options.addAll(List.of(JavaModuleOptions.defaultModuleOptionArray()));
        }
        return options;
    }

    private static Run demo(Path directory, String... args)
            throws IOException, InterruptedException
    {
        return demo(directory, List.of(), args);
    }

    private static Run demo(Path directory, List<String> jvmOptions, String... args)
            throws IOException, InterruptedException
    {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add("dev.ferry.examples.demo.DemoCommand");
        command.addAll(List.of(args));
        Path stdout = Files.createTempFile(directory, "stdout", ".txt");
        Path stderr = Files.createTempFile(directory, "stderr", ".txt");
        Process process = new ProcessBuilder(command).directory(directory.toFile())
                .redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
        if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            StandaloneCluster.destroyTree(process.toHandle());
            throw new AssertionError("bin/ferry demo did not finish within " + TIMEOUT_SECONDS + " s; stdout:\n" + Files.readString(stdout, StandardCharsets.UTF_8));
        }
        return new Run(process.exitValue(), Files.readString(stdout, StandardCharsets.UTF_8), Files.readString(stderr, StandardCharsets.UTF_8));
    }

    @Test
    void runsTheQueriesOnTheSimulatedClusterBothWaysAndWritesTheReport(@TempDir Path directory)
            throws IOException, InterruptedException
    {
        Path topology = Path.of("..", "examples", "topologies", "dgx-h100-ib-2node.json").toAbsolutePath().normalize();
        Path data = directory.resolve("data");
        Run run = demo(directory, "--rows", "40000", "--topology", topology.toString(), "--dir", data.toString());
        assertEquals(0, run.exitCode(), run.stdout() + run.stderr());
        String out = run.stdout();
        assertTrue(out.contains("[1/10] Route decisions"), out);
        assertTrue(out.contains("GPU<->GPU NVLINK x28"), "the topology summary is missing:\n" + out);
        assertTrue(out.contains("dgx-a <-> dgx-b: RDMA"), out);
        // local-cluster[4,1,1024] by default: two executors on each simulated node
        assertTrue(out.contains("executor 0 on dgx-a:GPU0") && out.contains("executor 1 on dgx-b:GPU0"), out);
        assertTrue(out.contains("Data: generating"), out);
        for (String query : List.of("revenue_by_nation", "top_brands_per_type", "distinct_per_ship_mode", "order_size_histogram", "top_customers_per_segment")) {
            assertTrue(out.lines().anyMatch(line -> line.matches("  " + query + "\\s+\\d+\\.\\ds\\s+\\d+\\.\\ds\\s+\\d+\\.\\d\\dx\\s+[1-9][\\d,]*\\s+[1-9][\\d,]*\\s+agree.*")),
                    query + ": no line with both times, the ratio, both shuffles' bytes written and agreeing results:\n" + out);
        }
        // Same-node peers read GPU blocks out of the peer's GPU into host memory (the CPU reduce: PEER_GPU_D2H, not NVLINK),
        // the other node's over GPUDirect RDMA: both must have carried bytes.
        for (String route : List.of("PEER_GPU_D2H", "GPUDIRECT_RDMA")) {
            assertTrue(out.lines().anyMatch(line -> line.matches("  " + route + "\\s+[1-9][\\d,]*\\s+\\d+\\.\\d%.*")), route + " carried no bytes:\n" + out);
        }
        assertTrue(out.lines().anyMatch(line -> line.matches("gds reader: HOST [1-9][\\d,]* bytes.*|gds reader: .*(BOUNCE|GDS) [1-9][\\d,]* bytes.*")), "the gds reader read nothing:\n" + out);
        assertTrue(out.contains("Results: identical in all 5 queries"), out);

        Path report = data.resolve("report.html");
        assertTrue(out.contains("Report (tables and the cluster drawn with the bytes each link carried): " + report.toAbsolutePath().normalize()), out);
        String html = Files.readString(report, StandardCharsets.UTF_8);
        assertTrue(html.contains("<svg") && html.contains("NVSwitch: 8 GPUs"), "no drawing in the report");
        assertTrue(html.matches("(?s).*PIX GPUDIRECT_RDMA [\\d.]+ (B|KiB|MiB).*"), "no NIC link annotated with bytes in the report");

        // A second run reuses the generated data.
        Run again = demo(directory, quickJvm(true), "--rows", "40000", "--topology", topology.toString(), "--dir", data.toString(), "--master", "local[2]");
        assertEquals(0, again.exitCode(), again.stdout() + again.stderr());
        assertTrue(again.stdout().contains("Data: reusing"), again.stdout());
    }

    @Test
    void printsHelpAndRejectsBadArguments(@TempDir Path directory)
            throws IOException, InterruptedException
    {
        Run help = demo(directory, quickJvm(false), "--help");
        assertEquals(0, help.exitCode(), help.stderr());
        assertTrue(help.stdout().startsWith("usage: bin/ferry demo"), help.stdout());
        assertTrue(help.stdout().contains("--size S") && help.stdout().contains("--master M") && help.stdout().contains("--topology FILE")
                && help.stdout().contains("--dir DIR"), help.stdout());
        Run bad = demo(directory, quickJvm(false), "--rows", "many");
        assertEquals(2, bad.exitCode());
        assertTrue(bad.stderr().contains("--rows takes a positive number"), bad.stderr());
        Run badSize = demo(directory, quickJvm(false), "--size", "lots");
        assertEquals(2, badSize.exitCode());
        assertTrue(badSize.stderr().contains("--size takes a size like"), badSize.stderr());
    }
}
