package dev.ferry.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.ferry.common.FerryException;
import dev.ferry.repartition.RepartitionObserver;
import dev.ferry.repartition.RepartitionedResult;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.Success$;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The device repartition of {@link TestDeviceRepartitionLocalCluster} losing an executor that holds
 * map outputs, on the simulated two-node DGX cluster: once after the map job (killed and gone
 * before the reduce job starts, so the driver's check finds it), once during the reduce job (the
 * first reduce call on a map-holding executor stalls until that executor is killed, so its
 * partition's retry, and any task that starts after, find the executor gone while fetching). Both
 * times every partition holds exactly Spark's rows, the function finished once per partition,
 * the run names the lost executor and reruns its maps, and no task failed but the one that died
 * with its executor (a fetch from a gone executor reports the loss instead of failing the task).
 * A cluster per test: a kill leaves one executor fewer (Spark does not replace an executor it was
 * told to kill), and the store check must not see the other test's Spark shuffle being cleaned up.
 */
class TestDeviceRepartitionLostExecutor
{
    private SparkSession spark;
    private final FailedTasks failedTasks = new FailedTasks();

    private void start(Map<String, String> extra)
            throws InterruptedException
    {
        Map<String, String> settings = new TreeMap<>(extra);
        settings.put("spark.ferry.device", "simulated");
        spark = TopologyClusters.start(TopologyClusters.exampleTopology("dgx-h100-ib-2node"), "device", settings);
        spark.sparkContext().addSparkListener(failedTasks);
    }

    @AfterEach
    void stop()
    {
        if (spark != null) {
            spark.stop();
        }
    }

    @Test
    void executorLostBetweenTheJobsHasItsMapsRerunBeforeTheReduceJob(@TempDir Path directory)
            throws IOException, InterruptedException
    {
        start(Map.of());
        Path calls = Files.createDirectory(directory.resolve("calls"));
        Losses losses = killingAfterFirstMapJob();
        DeviceRepartitionRun.Routes routes = DeviceRepartitionRun.runAndCompare(spark, directory.resolve("data"), losses, new CountedRenderRows(calls, false));

        assertEquals(List.of(1), List.copyOf(losses.lostByRound.keySet()), "one round lost an executor: " + losses);
        assertEquals(Set.of(losses.victim), losses.lostByRound.get(1).keySet(), losses.toString());
        assertTrue(losses.lostByRound.get(1).get(losses.victim).contains("no longer has it registered"), losses.toString());
        assertFalse(losses.mapsRerun.isEmpty(), losses.toString());
        assertEquals(allPartitions(), losses.partitionsRerun, "no reduce job ran before the check: every partition runs in round 2");
        for (RepartitionedResult<ArrayList<String>> result : routes.results()) {
            assertEquals(2, result.round(), DeviceRepartitionRun.describe(result));
            assertNotEquals(losses.victim, result.executorId(), DeviceRepartitionRun.describe(result));
            assertFalse(result.peerRoutes().containsKey(losses.victim), "no piece came from the lost executor: " + DeviceRepartitionRun.describe(result));
        }
        assertEquals(onceEach(), CountedRenderRows.calls(calls, "started"), "the function started once per partition");
        assertEquals(onceEach(), CountedRenderRows.calls(calls, "finished"), "the function finished once per partition");
        assertEquals(List.of(), failedTasks.collected(spark), "no task failed");
    }

    @Test
    void executorLostDuringTheReduceJobHasItsMapsAndOnlyTheUnfinishedPartitionsRerun(@TempDir Path directory)
            throws Exception
    {
        start(Map.of());
        Path calls = Files.createDirectory(directory.resolve("calls"));
        Losses losses = new Losses() {
            @Override
            public void mapJobEnded(int round, Set<String> executors)
            {
                super.mapJobEnded(round, executors);
                if (round == 1) {
                    try {
                        CountedRenderRows.writeHolders(calls, executors);
                    }
                    catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            }
        };
        CompletableFuture<String> killed = CompletableFuture.supplyAsync(() -> {
            try {
                String victim = CountedRenderRows.victim(calls, 180);
                ExecutorKills.killAndWait(spark, victim);
                return victim;
            }
            catch (IOException | InterruptedException e) {
                throw new IllegalStateException("Killing the stalled executor failed", e);
            }
        });
        DeviceRepartitionRun.Routes routes = DeviceRepartitionRun.runAndCompare(spark, directory.resolve("data"), losses, new CountedRenderRows(calls, true));
        String victim = killed.get(10, TimeUnit.SECONDS);

        assertEquals(List.of(1), List.copyOf(losses.lostByRound.keySet()), "one round lost an executor: " + losses);
        assertEquals(Set.of(victim), losses.lostByRound.get(1).keySet(), losses.toString());
        assertFalse(losses.mapsRerun.isEmpty(), losses.toString());
        assertFalse(losses.partitionsRerun.isEmpty(), "at least the stalled partition's retry found the executor gone: " + losses);
        for (RepartitionedResult<ArrayList<String>> result : routes.results()) {
            int expectedRound = losses.partitionsRerun.contains(result.partition()) ? 2 : 1;
            assertEquals(expectedRound, result.round(), DeviceRepartitionRun.describe(result) + "; " + losses);
            assertNotEquals(victim, result.executorId(), DeviceRepartitionRun.describe(result));
        }
        assertEquals(onceEach(), CountedRenderRows.calls(calls, "finished"), "the function finished once per partition");
        Map<Integer, Integer> started = CountedRenderRows.calls(calls, "started");
        assertEquals(DeviceRepartitionRun.PARTITIONS + 1, started.values().stream().mapToInt(Integer::intValue).sum(),
                "one call more than partitions started: the stalled one that died with its executor; " + started);
        List<String> failed = failedTasks.collected(spark);
        assertEquals(1, failed.size(), "only the stalled task failed: " + failed);
        assertTrue(failed.get(0).contains("ExecutorLostFailure") && failed.get(0).contains("executor " + victim), failed.toString());
    }

    @Test
    void runFailsNamingTheLostExecutorWhenItsRoundsRunOut(@TempDir Path directory)
            throws IOException, InterruptedException
    {
        // One round only: the loss found before the first reduce job is the last round's.
        start(Map.of("spark.task.maxFailures", "1"));
        Path calls = Files.createDirectory(directory.resolve("calls"));
        Losses losses = killingAfterFirstMapJob();
        FerryException failure = assertThrows(FerryException.class,
                () -> DeviceRepartitionRun.runAndCompare(spark, directory.resolve("data"), losses, new CountedRenderRows(calls, false)));
        assertTrue(failure.getMessage().contains("{" + losses.victim + "=") && failure.getMessage().contains("the last of 1 (spark.task.maxFailures)"),
                failure.getMessage());
        assertEquals(Map.of(), CountedRenderRows.calls(calls, "started"), "the function never ran");
        DeviceRepartitionRun.assertStoresEmpty(spark);
    }

    /** An observer that kills an executor holding map outputs when the first map job ends, and waits until it is gone. */
    private Losses killingAfterFirstMapJob()
    {
        return new Losses() {
            @Override
            public void mapJobEnded(int round, Set<String> executors)
            {
                super.mapJobEnded(round, executors);
                if (round == 1) {
                    victim = executors.iterator().next();
                    try {
                        ExecutorKills.killAndWait(spark, victim);
                    }
                    catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException("Interrupted while killing executor " + victim, e);
                    }
                }
            }
        };
    }

    private static List<Integer> allPartitions()
    {
        List<Integer> partitions = new ArrayList<>();
        for (int partition = 0; partition < DeviceRepartitionRun.PARTITIONS; partition++) {
            partitions.add(partition);
        }
        return partitions;
    }

    private static Map<Integer, Integer> onceEach()
    {
        Map<Integer, Integer> counts = new TreeMap<>();
        allPartitions().forEach(partition -> counts.put(partition, 1));
        return counts;
    }

    /** Every task that ended other than successfully: stage, task, executor and reason. */
    private static final class FailedTasks
            extends SparkListener
    {
        private final List<String> failed = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void onTaskEnd(SparkListenerTaskEnd taskEnd)
        {
            if (!(taskEnd.reason() instanceof Success$)) {
                failed.add("stage " + taskEnd.stageId() + " task " + taskEnd.taskInfo().id() + " on executor " + taskEnd.taskInfo().executorId() + ": " + taskEnd.reason());
            }
        }

        List<String> collected(SparkSession spark)
        {
            try {
                spark.sparkContext().listenerBus().waitUntilEmpty(TimeUnit.SECONDS.toMillis(30));
            }
            catch (TimeoutException e) {
                throw new IllegalStateException("Spark's listener bus did not drain within 30 s", e);
            }
            return List.copyOf(failed);
        }
    }

    /** What the run told its observer. */
    private static class Losses
            implements RepartitionObserver
    {
        final Map<Integer, Set<String>> mapExecutorsByRound = new TreeMap<>();
        final Map<Integer, Map<String, String>> lostByRound = new TreeMap<>();
        final List<Integer> mapsRerun = new ArrayList<>();
        final List<Integer> partitionsRerun = new ArrayList<>();
        String victim;

        @Override
        public void mapJobEnded(int round, Set<String> executors)
        {
            mapExecutorsByRound.put(round, Set.copyOf(executors));
        }

        @Override
        public void executorsLost(int round, Map<String, String> whyByExecutor, List<Integer> maps, List<Integer> partitions)
        {
            lostByRound.put(round, Map.copyOf(whyByExecutor));
            mapsRerun.addAll(maps);
            partitionsRerun.addAll(partitions);
        }

        @Override
        public String toString()
        {
            return "map executors by round " + mapExecutorsByRound + ", lost by round " + lostByRound + ", maps rerun " + mapsRerun + ", partitions rerun "
                    + partitionsRerun;
        }
    }
}
