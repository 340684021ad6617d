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
import org.apache.spark.scheduler.SparkListenerStageCompleted;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A link fault on a {@code scripts/netns-cluster.sh} cluster, submitted from node 0: runs
 * {@code bin/ferry bench shuffle}'s wide join with Spark's sort shuffle (the reference), then with
 * Ferry, taking node {@code --node}'s link down ({@code ip link set down}) as soon as the first
 * stage that reads a shuffle is submitted, for {@code --down-seconds}, then bringing it back. Reduce tasks
 * reading that node's blocks fail their fetches, Spark reruns the stage, and the job must still
 * return the reference's rows. Prints each fetch failure (its peer and message), the stage attempts
 * and both results; exits 1 when they differ. For the integration test; not a benchmark.
 */
public final class LinkFaultJob
{
    private static final String QUERY = "SELECT count(*), sum(CAST(hash(f.*, d.*) AS BIGINT)) FROM fact f JOIN dim d ON f.k = d.dk";

    private LinkFaultJob() {}

    public static void main(String[] args)
            throws IOException, InterruptedException
    {
        long rows = 300_000;
        int node = 1;
        int downSeconds = 8;
        String data = null;
        for (int index = 0; index < args.length; index++) {
            switch (args[index]) {
                case "--rows" -> rows = Long.parseLong(args[++index]);
                case "--node" -> node = Integer.parseInt(args[++index]);
                case "--down-seconds" -> downSeconds = Integer.parseInt(args[++index]);
                case "--data" -> data = args[++index];
                default -> throw new IllegalArgumentException("Unknown argument " + args[index] + "; usage: LinkFaultJob [--rows N] [--node K] [--down-seconds S] --data DIR");
            }
        }
        if (data == null) {
            throw new IllegalArgumentException("LinkFaultJob needs --data DIR");
        }
        String script = System.getenv("FERRY_NETNS_SCRIPT");
        String run = System.getenv("FERRY_NETNS_RUN");
        int nodes = Integer.parseInt(System.getenv().getOrDefault("FERRY_NETNS_NODES", "0"));
        if (script == null || run == null || node <= 0 || node >= nodes) {
            throw new IllegalStateException("Needs a netns-cluster.sh run (FERRY_NETNS_*) and --node between 1 and " + (nodes - 1) + " (node 0 holds the driver)");
        }
        SparkSession spark = SparkSession.builder().appName("ferry-netns-link-fault")
                .config("spark.sql.autoBroadcastJoinThreshold", "-1")
                .config("spark.sql.adaptive.autoBroadcastJoinThreshold", "-1")
                .getOrCreate();
        spark.sparkContext().setLogLevel("WARN");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
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
            Fault fault = new Fault(script, run, node, downSeconds);
            spark.sparkContext().addSparkListener(fault);
            List<Row> faulted = spark.sql(QUERY).collectAsList();
            fault.awaitRestored();
            spark.sparkContext().listenerBus().waitUntilEmpty();
            System.out.printf(Locale.ROOT, "link-fault node=%d downSeconds=%d linkTakenDown=%s fetchFailures=%d stageRetries=%d%n", node, downSeconds, fault.done.get(),
                    fault.fetchFailures.get(), fault.stageRetries.get());
            System.out.println("link-fault reference=" + reference + " ferry=" + faulted);
            exit = reference.toString().equals(faulted.toString()) ? 0 : 1;
            System.out.println(exit == 0 ? "link-fault results identical" : "link-fault results differ");
        }
        catch (TimeoutException e) {
            throw new IllegalStateException("Spark's listener bus did not drain", e);
        }
        finally {
            spark.stop();
        }
        System.exit(exit);
    }

    /** Takes the link down once the first shuffle-reading stage starts, brings it back after the pause; records fetch failures and stage retries. */
    private static final class Fault
            extends SparkListener
    {
        private final String script;
        private final String run;
        private final int node;
        private final int downSeconds;
        private final AtomicBoolean started = new AtomicBoolean();
        private final AtomicBoolean done = new AtomicBoolean();
        private final AtomicInteger fetchFailures = new AtomicInteger();
        private final AtomicInteger stageRetries = new AtomicInteger();
        private final List<Thread> threads = new ArrayList<>();

        Fault(String script, String run, int node, int downSeconds)
        {
            this.script = script;
            this.run = run;
            this.node = node;
            this.downSeconds = downSeconds;
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
            if (!submitted.stageInfo().parentIds().isEmpty() && started.compareAndSet(false, true)) {
                Thread thread = new Thread(this::flap, "link-fault");
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
                System.out.println("link-fault fetch failure from " + (failed.bmAddress() == null ? "?" : failed.bmAddress().host()) + ": " + failed.message());
            }
        }

        private void flap()
        {
            try {
                link("down");
                System.out.printf(Locale.ROOT, "link-fault node%d's link down for %d s%n", node, downSeconds);
                Thread.sleep(TimeUnit.SECONDS.toMillis(downSeconds));
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            finally {
                link("up");
                System.out.printf(Locale.ROOT, "link-fault node%d's link up again%n", node);
                done.set(true);
            }
        }

        private void link(String state)
        {
            try {
                Process process = new ProcessBuilder(script, "link", "--run", run, "--node", Integer.toString(node), state).inheritIO().start();
                if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
                    throw new IllegalStateException("netns-cluster.sh link " + state + " failed");
                }
            }
            catch (IOException e) {
                throw new IllegalStateException("Could not run netns-cluster.sh link " + state, e);
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted setting the link " + state, e);
            }
        }

        void awaitRestored()
                throws InterruptedException
        {
            List<Thread> started;
            synchronized (threads) {
                started = List.copyOf(threads);
            }
            for (Thread thread : started) {
                thread.join(TimeUnit.SECONDS.toMillis(downSeconds + 60));
            }
        }
    }
}
