package dev.ferry.it;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.spark.launcher.JavaModuleOptions;

import static java.util.Objects.requireNonNull;

/**
 * A real Spark standalone cluster on loopback: one Master and {@code workers} Worker JVMs started the
 * way {@code sbin/start-master.sh}/{@code start-worker.sh} would, from a {@code SPARK_HOME} laid out
 * under {@code directory} whose {@code jars/} links the Spark jars of this test's class path (no Ferry
 * jar among them: Ferry reaches the cluster only through {@code spark-submit --jars}). Workers launch
 * executors from that {@code SPARK_HOME}. {@link #close()} destroys every process tree it started.
 */
final class StandaloneCluster
        implements AutoCloseable
{
    static final String HOST = "127.0.0.1";
    /** Master and workers only keep bookkeeping; executors get spark.executor.memory. */
    private static final String DAEMON_HEAP = "256m";

    private final Path directory;
    private final Path sparkHome;
    private final int masterPort;
    private final List<Process> processes = new ArrayList<>();
    // Stops the cluster also when the test JVM is ended (Surefire's timeout, Ctrl-C) before close() runs.
    private final Thread shutdownHook = new Thread(this::destroyAll, "standalone-cluster-shutdown");

    private StandaloneCluster(Path directory, Path sparkHome, int masterPort)
    {
        this.directory = requireNonNull(directory, "directory is null");
        this.sparkHome = requireNonNull(sparkHome, "sparkHome is null");
        this.masterPort = masterPort;
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /** Starts the master and the workers and waits (bounded) until every worker has registered. */
    static StandaloneCluster start(Path directory, int workers, int workerCores, String workerMemory, long timeoutSeconds)
            throws IOException, InterruptedException
    {
        Path sparkHome = layOutSparkHome(directory.resolve("spark-home"));
        StandaloneCluster cluster = new StandaloneCluster(directory, sparkHome, freePort());
        try {
            Path masterLog = directory.resolve("logs/master.log");
            cluster.launch(DAEMON_HEAP, masterLog, List.of("org.apache.spark.deploy.master.Master",
                    "--host", HOST, "--port", String.valueOf(cluster.masterPort), "--webui-port", String.valueOf(freePort())));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
            cluster.awaitPort(cluster.masterPort, deadline, masterLog);
            for (int i = 0; i < workers; i++) {
                Path work = Files.createDirectories(directory.resolve("worker-" + i));
                cluster.launch(DAEMON_HEAP, directory.resolve("logs/worker-" + i + ".log"), List.of("org.apache.spark.deploy.worker.Worker",
                        "--host", HOST, "--webui-port", String.valueOf(freePort()), "--cores", String.valueOf(workerCores),
                        "--memory", workerMemory, "--work-dir", work.toString(), cluster.masterUrl()));
            }
            cluster.awaitLogLines(masterLog, "Registering worker", workers, deadline);
            return cluster;
        }
        catch (IOException | InterruptedException | RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
    }

    String masterUrl()
    {
        return "spark://" + HOST + ":" + masterPort;
    }

    Path sparkHome()
    {
        return sparkHome;
    }

    /** {@code java} with Spark's module options and the cluster's jars, as Spark's launcher builds it. */
    List<String> javaCommand(String maxHeap)
    {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx" + maxHeap);
        // The master, the workers and spark-submit's driver: serial GC and C1 only, as the executors (FerrySessions).
        command.addAll(List.of(FerrySessions.EXECUTOR_JVM_OPTIONS.split(" ")));
        command.addAll(List.of(JavaModuleOptions.defaultModuleOptionArray()));
        command.add("-cp");
        command.add(sparkHome.resolve("jars") + "/*");
        return command;
    }

    /** Environment every cluster process gets: loopback only, this SPARK_HOME, and the Scala version the launcher would otherwise find in a build tree. */
    void environment(Map<String, String> environment)
    {
        environment.put("SPARK_HOME", sparkHome.toString());
        environment.put("SPARK_SCALA_VERSION", "2.13");
        environment.put("SPARK_LOCAL_IP", HOST);
        environment.put("SPARK_LOCAL_HOSTNAME", HOST);
        environment.remove("SPARK_TESTING");
    }

    /** Starts a JVM with the cluster's class path and environment (stopped by {@link #close()}), output to {@code log}. */
    Process launch(String maxHeap, Path log, List<String> mainAndArguments)
            throws IOException
    {
        List<String> command = javaCommand(maxHeap);
        command.addAll(mainAndArguments);
        Files.createDirectories(log.getParent());
        ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        environment(builder.environment());
        Process process = builder.start();
        synchronized (processes) {
            processes.add(process);
        }
        return process;
    }

    private static Path layOutSparkHome(Path sparkHome)
            throws IOException
    {
        Path jars = Files.createDirectories(sparkHome.resolve("jars"));
        // The launcher takes SPARK_HOME/jars as the class path of a distribution only when a RELEASE file is there.
        Files.writeString(sparkHome.resolve("RELEASE"), "Spark 4.2.0 laid out by Ferry's integration tests\n", StandardCharsets.UTF_8);
        int linked = 0;
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path jar = Path.of(entry);
            String name = jar.getFileName().toString();
            if (!name.endsWith(".jar") || !Files.isRegularFile(jar) || isFerry(jar)) {
                continue;
            }
            Path link = jars.resolve(name);
            Files.deleteIfExists(link);
            Files.createSymbolicLink(link, jar.toAbsolutePath());
            linked++;
        }
        if (!Files.exists(jars.resolve("spark-core_2.13-4.2.0.jar"))) {
            throw new IllegalStateException("No spark-core_2.13-4.2.0.jar on the test class path to lay out " + sparkHome + " (" + linked + " jars linked)");
        }
        return sparkHome;
    }

    private static boolean isFerry(Path jar)
    {
        return jar.getFileName().toString().startsWith("ferry-") || jar.toString().contains("/dev/ferry/");
    }

    static int freePort()
            throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            return socket.getLocalPort();
        }
    }

    private void awaitPort(int port, long deadline, Path log)
            throws InterruptedException, IOException
    {
        while (true) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(HOST, port), 1000);
                return;
            }
            catch (IOException e) {
                checkAlive(log);
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("The Spark master did not listen on " + HOST + ":" + port + " in time; its log:\n" + tail(log));
                }
                Thread.sleep(200);
            }
        }
    }

    private void awaitLogLines(Path log, String text, int count, long deadline)
            throws InterruptedException, IOException
    {
        while (true) {
            long seen = Files.readAllLines(log, StandardCharsets.UTF_8).stream().filter(line -> line.contains(text)).count();
            if (seen >= count) {
                return;
            }
            checkAlive(log);
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Only " + seen + " of " + count + " workers registered in time; the master's log:\n" + tail(log));
            }
            Thread.sleep(200);
        }
    }

    private void checkAlive(Path log)
            throws IOException
    {
        synchronized (processes) {
            for (Process process : processes) {
                if (!process.isAlive()) {
                    throw new IllegalStateException("A cluster process exited with " + process.exitValue() + " (see " + log.getParent() + "); " + log.getFileName() + ":\n" + tail(log));
                }
            }
        }
    }

    static String tail(Path log)
    {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Destroys each process tree, children (executors) first, then waits for it, bounded, forcibly at the end. */
    @Override
    public void close()
    {
        destroyAll();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        }
        catch (IllegalStateException e) {
            // The JVM is already shutting down; the hook is running or ran.
        }
    }

    private void destroyAll()
    {
        List<Process> started;
        synchronized (processes) {
            started = new ArrayList<>(processes);
            processes.clear();
        }
        // Newest first: the driver and workers before the master, so none reconnects or relaunches.
        for (int i = started.size() - 1; i >= 0; i--) {
            destroyTree(started.get(i).toHandle());
        }
    }

    static void destroyTree(ProcessHandle process)
    {
        List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
        tree.add(process);
        tree.forEach(ProcessHandle::destroy);
        for (ProcessHandle handle : tree) {
            try {
                handle.onExit().get(10, TimeUnit.SECONDS);
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                handle.destroyForcibly();
            }
            catch (ExecutionException | TimeoutException e) {
                handle.destroyForcibly();
            }
        }
    }
}
