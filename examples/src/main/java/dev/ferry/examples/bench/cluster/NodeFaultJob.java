package dev.ferry.examples.bench.cluster;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ferry.examples.bench.shuffle.ShuffleData;
import org.apache.spark.FetchFailed;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerExecutorRemoved;
import org.apache.spark.scheduler.SparkListenerStageCompleted;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A node fault on a {@code scripts/netns-cluster.sh} cluster, submitted from node 0: runs
 * {@code bin/ferry bench shuffle}'s wide join with Spark's sort shuffle (the reference, no fault),
 * then with Ferry, starting the fault as soon as the first stage that reads a shuffle is submitted:
 * <ul>
 * <li>{@code link-down}: node {@code --node}'s link down ({@code ip link set down}) for {@code --seconds}, then up;</li>
 * <li>{@code partition}: the path between node {@code --node} and node {@code --peer} cut for
 *     {@code --seconds}, then healed; both keep their links to every other node (and the driver);</li>
 * <li>{@code kill}: every process of node {@code --node} (its Worker and executor) killed with SIGKILL; not undone;</li>
 * <li>{@code loss}: every node drops {@code --percent} of the packets it sends (nftables, at random) for the
 *     whole Ferry run, from before its first stage to after its result; each node's drops are printed.</li>
 * </ul>
 * Spark must recover (fetch failures, stage reruns, executor loss) and the job must still return the
 * reference's rows. Prints each fetch failure (its peer and message), each executor removed, the stage
 * attempts and both results; exits 1 when they differ. For the integration tests; not a benchmark.
 */
public final class NodeFaultJob
{
    private static final String QUERY = "SELECT count(*), sum(CAST(hash(f.*, d.*) AS BIGINT)) FROM fact f JOIN dim d ON f.k = d.dk";

    private NodeFaultJob() {}

    public static void main(String[] args)
            throws IOException, InterruptedException
    {
        long rows = 300_000;
        String fault = "link-down";
        int node = 1;
        int peer = -1;
        int seconds = 8;
        String percent = "1%";
        String data = null;
        for (int index = 0; index < args.length; index++) {
            switch (args[index]) {
                case "--rows" -> rows = Long.parseLong(args[++index]);
                case "--fault" -> fault = args[++index];
                case "--node" -> node = Integer.parseInt(args[++index]);
                case "--peer" -> peer = Integer.parseInt(args[++index]);
                case "--seconds" -> seconds = Integer.parseInt(args[++index]);
                case "--percent" -> percent = args[++index];
                case "--data" -> data = args[++index];
                default -> throw new IllegalArgumentException("Unknown argument " + args[index]
                        + "; usage: NodeFaultJob [--rows N] [--fault link-down|partition|kill|loss] [--node K] [--peer J] [--seconds S] [--percent P%] --data DIR");
            }
        }
        if (data == null) {
            throw new IllegalArgumentException("NodeFaultJob needs --data DIR");
        }
        String script = System.getenv("FERRY_NETNS_SCRIPT");
        String run = System.getenv("FERRY_NETNS_RUN");
        int nodes = Integer.parseInt(System.getenv().getOrDefault("FERRY_NETNS_NODES", "0"));
        if (script == null || run == null || node <= 0 || node >= nodes) {
            throw new IllegalStateException("Needs a netns-cluster.sh run (FERRY_NETNS_*) and --node between 1 and " + (nodes - 1) + " (node 0 holds the driver)");
        }
        List<String> start = switch (fault) {
            case "link-down" -> List.of("link", "--run", run, "--node", Integer.toString(node), "down");
            case "partition" -> {
                if (peer <= 0 || peer >= nodes || peer == node) {
                    throw new IllegalArgumentException("partition needs --peer between 1 and " + (nodes - 1) + ", not node " + node + " itself (node 0 holds the driver)");
                }
                yield List.of("partition", "--run", run, "--node", Integer.toString(node), "--peer", Integer.toString(peer), "on");
            }
            case "kill" -> List.of("kill", "--run", run, "--node", Integer.toString(node));
            case "loss" -> List.of("loss", "--run", run, "--node", "all", percent);
            default -> throw new IllegalArgumentException("Unknown --fault " + fault + "; say link-down, partition, kill or loss");
        };
        List<String> undo = switch (fault) {
            case "link-down" -> List.of("link", "--run", run, "--node", Integer.toString(node), "up");
            case "partition" -> List.of("partition", "--run", run, "--node", Integer.toString(node), "--peer", Integer.toString(peer), "off");
            case "loss" -> List.of("loss", "--run", run, "--node", "all", "off");
            default -> List.of();
        };
        SparkSession spark = SparkSession.builder().appName("ferry-netns-" + fault)
                .config("spark.sql.autoBroadcastJoinThreshold", "-1")
                .config("spark.sql.adaptive.autoBroadcastJoinThreshold", "-1")
                .getOrCreate();
        spark.sparkContext().setLogLevel("WARN");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        // The executor infos include the driver's.
        while (spark.sparkContext().statusTracker().getExecutorInfos().length < nodes + 1) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Not all " + nodes + " executors registered within 180 s");
            }
            Thread.sleep(100);
        }
        int exit;
        try {
            ShuffleData.register(spark, rows, Path.of(data));
            spark.conf().set("spark.ferry.enabled", "false");
            List<Row> reference = spark.sql(QUERY).collectAsList();
            spark.conf().set("spark.ferry.enabled", "true");
            // Loss lasts the whole run; the other faults start with its first shuffle-reading stage.
            boolean wholeRun = fault.equals("loss");
            Fault injected = new Fault(script, fault, start, undo, seconds, wholeRun);
            spark.sparkContext().addSparkListener(injected);
            List<Row> faulted;
            if (wholeRun) {
                injected.start();
                try {
                    faulted = spark.sql(QUERY).collectAsList();
                }
                finally {
                    injected.undo();
                }
            }
            else {
                faulted = spark.sql(QUERY).collectAsList();
                injected.awaitDone();
            }
            spark.sparkContext().listenerBus().waitUntilEmpty();
            System.out.printf(Locale.ROOT, "node-fault fault=%s node=%d seconds=%d injected=%s fetchFailures=%d stageRetries=%d executorsRemoved=%d%n", fault, node,
                    seconds, injected.done.get(), injected.fetchFailures.get(), injected.stageRetries.get(), injected.executorsRemoved.get());
            System.out.println("node-fault reference=" + reference + " ferry=" + faulted);
            exit = reference.toString().equals(faulted.toString()) ? 0 : 1;
            System.out.println(exit == 0 ? "node-fault results identical" : "node-fault results differ");
        }
        catch (TimeoutException e) {
            throw new IllegalStateException("Spark's listener bus did not drain", e);
        }
        finally {
            spark.stop();
        }
        System.exit(exit);
    }

    /**
     * Starts the fault once the first shuffle-reading stage starts, undoes it after the pause (if it can be
     * undone), or for a whole-run fault around the run ({@link #start}, {@link #undo}); records what Spark saw.
     */
    private static final class Fault
            extends SparkListener
    {
        private final String script;
        private final String name;
        private final List<String> start;
        private final List<String> undo;
        private final int seconds;
        private final boolean wholeRun;
        private final AtomicBoolean started = new AtomicBoolean();
        private final AtomicBoolean done = new AtomicBoolean();
        private final AtomicInteger fetchFailures = new AtomicInteger();
        private final AtomicInteger stageRetries = new AtomicInteger();
        private final AtomicInteger executorsRemoved = new AtomicInteger();
        private final List<Thread> threads = new ArrayList<>();

        Fault(String script, String name, List<String> start, List<String> undo, int seconds, boolean wholeRun)
        {
            this.wholeRun = wholeRun;
            this.script = script;
            this.name = name;
            this.start = start;
            this.undo = undo;
            this.seconds = seconds;
        }

        @Override
        public void onStageCompleted(SparkListenerStageCompleted completed)
        {
            if (completed.stageInfo().attemptNumber() > 0) {
                stageRetries.incrementAndGet();
            }
        }

        // The first stage that reads a shuffle: its tasks are about to fetch blocks from every node.
        @Override
        public void onStageSubmitted(SparkListenerStageSubmitted submitted)
        {
            if (!wholeRun && !submitted.stageInfo().parentIds().isEmpty() && started.compareAndSet(false, true)) {
                Thread thread = new Thread(this::inject, "node-fault");
                thread.setDaemon(true);
                synchronized (threads) {
                    threads.add(thread);
                }
                thread.start();
            }
        }

        @Override
        public void onTaskEnd(SparkListenerTaskEnd taskEnd)
        {
            if (taskEnd.reason() instanceof FetchFailed failed) {
                fetchFailures.incrementAndGet();
                System.out.println("node-fault fetch failure from " + (failed.bmAddress() == null ? "?" : failed.bmAddress().host()) + ": " + failed.message());
            }
        }

        @Override
        public void onExecutorRemoved(SparkListenerExecutorRemoved removed)
        {
            executorsRemoved.incrementAndGet();
            System.out.println("node-fault executor " + removed.executorId() + " removed: " + removed.reason());
        }

        private void inject()
        {
            try {
                script(start);
                System.out.printf(Locale.ROOT, "node-fault %s started (%s)%n", name, String.join(" ", start));
                if (!undo.isEmpty()) {
                    Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
                }
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            finally {
                if (!undo.isEmpty()) {
                    script(undo);
                    System.out.printf(Locale.ROOT, "node-fault %s undone (%s)%n", name, String.join(" ", undo));
                }
                done.set(true);
            }
        }

        /** A whole-run fault: on before the run's first stage. */
        void start()
        {
            started.set(true);
            script(start);
            System.out.printf(Locale.ROOT, "node-fault %s started (%s)%n", name, String.join(" ", start));
        }

        /** A whole-run fault: off after the run's result (or its failure). */
        void undo()
        {
            script(undo);
            System.out.printf(Locale.ROOT, "node-fault %s undone (%s)%n", name, String.join(" ", undo));
            done.set(true);
        }

        private void script(List<String> arguments)
        {
            List<String> command = new ArrayList<>();
            command.add(script);
            command.addAll(arguments);
            try {
                Process process = new ProcessBuilder(command).inheritIO().start();
                if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
                    throw new IllegalStateException("netns-cluster.sh " + String.join(" ", arguments) + " failed");
                }
            }
            catch (IOException e) {
                throw new IllegalStateException("Could not run netns-cluster.sh " + String.join(" ", arguments), e);
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted running netns-cluster.sh " + String.join(" ", arguments), e);
            }
        }

        void awaitDone()
                throws InterruptedException
        {
            List<Thread> running;
            synchronized (threads) {
                running = List.copyOf(threads);
            }
            for (Thread thread : running) {
                thread.join(TimeUnit.SECONDS.toMillis(seconds + 60));
            }
        }
    }
}
