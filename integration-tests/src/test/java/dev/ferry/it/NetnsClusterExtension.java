package dev.ferry.it;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import static java.util.Objects.requireNonNull;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A Spark standalone cluster across Linux network namespaces, one per node, with shaped links, made
 * by {@code scripts/netns-cluster.sh} before the test class and torn down after it (also when the
 * test JVM exits early; a JVM that is killed leaves a run that the script's next {@code up} tears
 * down as stale, since this JVM is its owner). Skips the class, saying why, where namespaces cannot
 * be made (not root, no {@code ip}/{@code tc}). After the teardown it asserts that nothing of the
 * run is left: no namespace (and so no veth, bridge or qdisc, which live only inside them), no
 * per-namespace hosts file, no state, no process.
 */
final class NetnsClusterExtension
        implements BeforeAllCallback, AfterAllCallback
{
    private static final long UP_TIMEOUT_SECONDS = 240;
    private static final long DOWN_TIMEOUT_SECONDS = 120;

    private final int nodes;
    private final String rate;
    private final String workerMemory;
    private Path directory;
    private Map<String, String> run = Map.of();
    private Thread shutdownHook;

    NetnsClusterExtension(int nodes, String rate, String workerMemory)
    {
        this.nodes = nodes;
        this.rate = requireNonNull(rate, "rate is null");
        this.workerMemory = requireNonNull(workerMemory, "workerMemory is null");
    }

    static Path script()
    {
        return Path.of(System.getProperty("ferry.repo.dir", "..")).resolve("scripts/netns-cluster.sh").toAbsolutePath().normalize();
    }

    /** Why namespaces cannot be made here, or empty when they can. */
    static Optional<String> unavailableReason()
            throws IOException, InterruptedException
    {
        String uid = run(List.of("id", "-u"), 10).output().trim();
        if (!uid.equals("0")) {
            return Optional.of("network namespaces need root; this test runs as uid " + uid);
        }
        for (String tool : List.of("ip", "tc")) {
            if (run(List.of("sh", "-c", "command -v " + tool), 10).exitCode() != 0) {
                return Optional.of("'" + tool + "' (iproute2) is not installed");
            }
        }
        // Root in a container without CAP_SYS_ADMIN still cannot make one: try.
        String probe = "ferry-probe-" + ProcessHandle.current().pid();
        Result add = run(List.of("ip", "netns", "add", probe), 10);
        if (add.exitCode() != 0) {
            return Optional.of("'ip netns add' fails here: " + add.output().trim());
        }
        Result delete = run(List.of("ip", "netns", "del", probe), 10);
        if (delete.exitCode() != 0) {
            throw new IllegalStateException("Could not delete the probe namespace " + probe + ": " + delete.output());
        }
        return Optional.empty();
    }

    @Override
    public void beforeAll(ExtensionContext context)
            throws IOException, InterruptedException
    {
        Optional<String> reason = unavailableReason();
        assumeTrue(reason.isEmpty(), () -> "No network-namespace cluster: " + reason.orElseThrow());
        directory = Files.createDirectories(Path.of("target", "netns", context.getRequiredTestClass().getSimpleName()).toAbsolutePath());
        Path classpath = directory.resolve("classpath.txt");
        Files.writeString(classpath, System.getProperty("java.class.path"), StandardCharsets.UTF_8);
        shutdownHook = new Thread(this::downQuietly, "netns-cluster-down");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        Result up = run(List.of(script().toString(), "up", "--classpath", classpath.toString(), "--nodes", Integer.toString(nodes), "--rate", rate,
                "--dir", directory.resolve("cluster").toString(), "--worker-cores", "1", "--worker-memory", workerMemory, "--timeout", "180",
                "--owner", Long.toString(ProcessHandle.current().pid())), UP_TIMEOUT_SECONDS);
        Map<String, String> values = new HashMap<>();
        for (String line : up.output().lines().toList()) {
            int equals = line.indexOf('=');
            if (line.startsWith("FERRY_NETNS_") && equals > 0) {
                values.put(line.substring(0, equals), line.substring(equals + 1));
            }
        }
        if (up.exitCode() != 0 || !values.containsKey("FERRY_NETNS_RUN")) {
            throw new IllegalStateException("netns-cluster.sh up failed (" + up.exitCode() + "):\n" + up.output());
        }
        run = Map.copyOf(values);
    }

    @Override
    public void afterAll(ExtensionContext context)
            throws IOException, InterruptedException
    {
        if (run.isEmpty()) {
            return;
        }
        String id = runId();
        Result down = run(List.of(script().toString(), "down", "--run", id), DOWN_TIMEOUT_SECONDS);
        run = Map.of();
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
        assertEquals(0, down.exitCode(), "netns-cluster.sh down failed:\n" + down.output());
        // Veths, the bridge and their qdiscs exist only inside the run's namespaces: none left means none of them left.
        List<String> namespaces = run(List.of("ip", "netns", "list"), 10).output().lines()
                .map(line -> line.split(" ")[0]).filter(name -> name.startsWith("ferry-" + id + "-")).toList();
        assertEquals(List.of(), namespaces, "Namespaces of run " + id + " left after down");
        String links = run(List.of("ip", "-o", "link", "show"), 10).output();
        assertFalse(links.contains("ferry-" + id + "-") || links.lines().anyMatch(line -> line.matches("^\\d+: port\\d+@.*")),
                "Interfaces of run " + id + " left in the test's namespace:\n" + links);
        assertFalse(Files.exists(Path.of("/etc/netns/ferry-" + id + "-node0")), "/etc/netns/ferry-" + id + "-node0 left after down");
        assertFalse(Files.exists(Path.of("/run/ferry-netns", id)), "/run/ferry-netns/" + id + " left after down");
        String clusterDirectory = directory.resolve("cluster").toString();
        List<String> processes = ProcessHandle.allProcesses()
                .filter(process -> process.info().arguments().map(arguments -> String.join(" ", arguments).contains(clusterDirectory)).orElse(false))
                .map(process -> process.pid() + " " + process.info().commandLine().orElse("?"))
                .toList();
        assertEquals(List.of(), processes, "Processes of run " + id + " left after down");
    }

    String runId()
    {
        return requireNonNull(run.get("FERRY_NETNS_RUN"), "the cluster is not up");
    }

    Path directory()
    {
        return directory;
    }

    /** {@code spark-submit} in client mode from node 0 (the script adds the master, driver address and topology file); bounded. */
    Result submit(List<String> arguments, Path log, long timeoutSeconds)
            throws IOException, InterruptedException
    {
        List<String> command = new ArrayList<>(List.of(script().toString(), "submit", "--run", runId(), "--"));
        command.addAll(arguments);
        Files.createDirectories(log.getParent());
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            StandaloneCluster.destroyTree(process.toHandle());
            throw new AssertionError("spark-submit did not finish within " + timeoutSeconds + " s; its output:\n" + StandaloneCluster.tail(log));
        }
        return new Result(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
    }

    /** Takes node {@code node}'s link down or brings it back up (a fault). */
    void link(int node, boolean up)
            throws IOException, InterruptedException
    {
        Result result = run(List.of(script().toString(), "link", "--run", runId(), "--node", Integer.toString(node), up ? "up" : "down"), 30);
        assertEquals(0, result.exitCode(), "netns-cluster.sh link failed:\n" + result.output());
    }

    private void downQuietly()
    {
        if (run.isEmpty()) {
            return;
        }
        try {
            run(List.of(script().toString(), "down", "--run", runId()), DOWN_TIMEOUT_SECONDS);
        }
        catch (IOException | InterruptedException | RuntimeException e) {
            System.err.println("netns-cluster.sh down --run " + run.get("FERRY_NETNS_RUN") + " failed at JVM exit: " + e);
        }
    }

    record Result(int exitCode, String output) {}

    private static Result run(List<String> command, long timeoutSeconds)
            throws IOException, InterruptedException
    {
        File output = File.createTempFile("netns-cluster", ".log");
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output).start();
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                StandaloneCluster.destroyTree(process.toHandle());
                throw new IllegalStateException(String.join(" ", command) + " did not finish within " + timeoutSeconds + " s:\n" + Files.readString(output.toPath()));
            }
            return new Result(process.exitValue(), Files.readString(output.toPath(), StandardCharsets.UTF_8));
        }
        finally {
            Files.deleteIfExists(output.toPath());
        }
    }
}
