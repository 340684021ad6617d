package dev.ferry.repartition;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Told on the driver what a {@link DeviceRepartitioned} run does between its Spark jobs, for
 * monitoring (and for tests that lose an executor at a chosen point). Called on the thread that
 * runs {@link DeviceRepartitioned#forEachPartition}; an exception thrown here ends the run (its
 * blocks are still removed).
 */
public interface RepartitionObserver
{
    /**
     * A round's map job ended: {@code executors} hold the map outputs it made. The live executors
     * are checked after this returns, before the round's reduce job starts.
     *
     * @param round 1 for the first map job, one more for each rerun
     * @param executors the executors that ran this round's map tasks
     */
    default void mapJobEnded(int round, Set<String> executors) {}

    /**
     * Executors holding map outputs were found gone in {@code round}; their maps run again in round
     * {@code round + 1}, and the partitions that could not fetch from them with them.
     *
     * @param round the round that found them gone
     * @param whyByExecutor each lost executor and why it counts as gone
     * @param mapsRerun the map indexes that run again
     * @param partitionsRerun the output partitions whose function runs in the next round (none yet ran it successfully)
     */
    default void executorsLost(int round, Map<String, String> whyByExecutor, List<Integer> mapsRerun, List<Integer> partitionsRerun) {}
}
