package dev.ferry.repartition;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.gds.api.DevicePartitionFunction;
import dev.ferry.gds.spark.GdsReaderFactory;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.connector.read.InputPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.IntStream;

import static java.util.Objects.requireNonNull;

/**
 * The driver's side of one {@link DeviceRepartitioned#forEachPartition} run, in rounds. A round is
 * a map job (every map in round 1; in later rounds the maps of the executors found gone), a check
 * that every executor holding map outputs is still registered with the driver, and, if so, a
 * reduce job over the partitions still without a result. A reduce task that finds a map's
 * executor gone reports the lost map outputs instead of running the function
 * ({@link ReduceOutcome.MapsLost}); the partitions that reported so, and only those, go to the
 * next round, so the function runs once per partition that succeeded. At most
 * {@code spark.task.maxFailures} rounds (Spark's bound on a task's attempts); the last round's
 * losses fail the run naming the executors.
 */
final class RepartitionRounds<R extends Serializable>
{
    static final String MAX_ROUNDS_KEY = "spark.task.maxFailures";

    private static final Logger LOG = LoggerFactory.getLogger(RepartitionRounds.class);

    private final JavaSparkContext context;
    private final GdsReaderFactory factory;
    private final List<InputPartition> inputs;
    private final int shuffleId;
    private final int[] keyColumns;
    private final int partitions;
    private final RepartitionObserver observer;
    private final DevicePartitionFunction<R> function;
    private final int maxRounds;

    RepartitionRounds(JavaSparkContext context, GdsReaderFactory factory, List<InputPartition> inputs, int shuffleId, int[] keyColumns, int partitions,
            RepartitionObserver observer, DevicePartitionFunction<R> function)
    {
        this.context = requireNonNull(context, "context is null");
        this.factory = requireNonNull(factory, "factory is null");
        this.inputs = List.copyOf(requireNonNull(inputs, "inputs is null"));
        this.shuffleId = shuffleId;
        this.keyColumns = keyColumns.clone();
        this.partitions = partitions;
        this.observer = requireNonNull(observer, "observer is null");
        this.function = requireNonNull(function, "function is null");
        this.maxRounds = Math.max(1, context.getConf().getInt(MAX_ROUNDS_KEY, 4));
    }

    /** Every partition's result, in partition order. */
    List<RepartitionedResult<R>> run()
    {
        List<MapPieces> maps = new ArrayList<>(Collections.nCopies(inputs.size(), null));
        List<RepartitionedResult<R>> results = new ArrayList<>(Collections.nCopies(partitions, null));
        List<Integer> mapsToRun = IntStream.range(0, inputs.size()).boxed().toList();
        List<Integer> pending = IntStream.range(0, partitions).boxed().toList();
        for (int round = 1; ; round++) {
            Set<String> mapExecutors = runMaps(round, mapsToRun, maps);
            observer.mapJobEnded(round, mapExecutors);
            Map<String, String> gone = unregisteredHolders(maps);
            List<Integer> redo;
            if (!gone.isEmpty()) {
                LOG.warn("Device repartition {}: executors {} holding map outputs are gone before round {}'s reduce job", shuffleId, gone, round);
                redo = pending;
            }
            else {
                redo = reduce(round, pending, maps, results, gone);
                if (redo.isEmpty()) {
                    return results;
                }
            }
            mapsToRun = IntStream.range(0, maps.size()).filter(index -> maps.get(index) != null && gone.containsKey(maps.get(index).executorId())).boxed().toList();
            if (round >= maxRounds) {
                throw new FerryException(ErrorCategory.EXTERNAL, "Device repartition " + shuffleId + ": executors holding map outputs were lost in round " + round
                        + ", the last of " + maxRounds + " (" + MAX_ROUNDS_KEY + "): " + gone + "; maps " + mapsToRun + " would run again, partitions " + redo
                        + " have no result");
            }
            LOG.warn("Device repartition {}: round {} lost executors {}; rerunning maps {} and then the partitions {} in round {} of at most {}", shuffleId, round, gone,
                    mapsToRun, redo, round + 1, maxRounds);
            observer.executorsLost(round, Collections.unmodifiableMap(gone), mapsToRun, redo);
            pending = redo;
        }
    }

    /** Runs maps {@code mapIndexes} (none: no job), storing what each left in {@code maps}; the executors that ran them. */
    private Set<String> runMaps(int round, List<Integer> mapIndexes, List<MapPieces> maps)
    {
        if (mapIndexes.isEmpty()) {
            return Set.of();
        }
        List<InputPartition> toRun = mapIndexes.stream().map(inputs::get).toList();
        int[] indexes = mapIndexes.stream().mapToInt(Integer::intValue).toArray();
        List<MapPieces> made = context.parallelize(toRun, toRun.size())
                .mapPartitionsWithIndex(new RepartitionMapTask(factory, shuffleId, indexes, keyColumns, partitions), false)
                .collect();
        Set<String> executors = new TreeSet<>();
        long rows = 0;
        for (MapPieces map : made) {
            maps.set(map.mapIndex(), map);
            executors.add(map.executorId());
            rows += map.rows();
        }
        LOG.info("Device repartition {} round {}: {} map tasks ({}) left {} rows in the device stores of executors {} for {} partitions", shuffleId, round, made.size(),
                round == 1 ? "all" : "rerun: " + mapIndexes, rows, executors, partitions);
        return executors;
    }

    /** The executors holding blocks of {@code maps} that the driver no longer has registered, with why. */
    private static Map<String, String> unregisteredHolders(List<MapPieces> maps)
    {
        Map<String, String> gone = new TreeMap<>();
        Set<String> checked = new TreeSet<>();
        for (MapPieces map : maps) {
            if (map != null && map.rows() > 0 && checked.add(map.executorId()) && !ExecutorGone.registered(map.executorId())) {
                gone.put(map.executorId(), "the driver no longer has it registered (checked before the reduce job)");
            }
        }
        return gone;
    }

    /**
     * Round {@code round}'s reduce job over {@code pending}: stores each finished partition's result,
     * adds the executors the others found gone to {@code gone}; the partitions to run again.
     */
    private List<Integer> reduce(int round, List<Integer> pending, List<MapPieces> maps, List<RepartitionedResult<R>> results, Map<String, String> gone)
    {
        List<ReduceOutcome<R>> outcomes = context.parallelize(pending, pending.size())
                .mapPartitionsWithIndex(new RepartitionReduceTask<>(factory.readSchema(), shuffleId, round, pending, maps, function), false)
                .collect();
        List<Integer> redo = new ArrayList<>();
        for (ReduceOutcome<R> outcome : outcomes) {
            if (outcome instanceof ReduceOutcome.Done<R> done) {
                results.set(done.partition(), done.result());
            }
            else if (outcome instanceof ReduceOutcome.MapsLost<R> lost) {
                redo.add(lost.partition());
                for (LostMapOutputs lostMaps : lost.lost()) {
                    gone.putIfAbsent(lostMaps.executorId(), lostMaps.why() + " (seen by the reduce task of partition " + lost.partition() + " on executor "
                            + lost.reducerExecutorId() + ")");
                }
            }
        }
        Collections.sort(redo);
        return redo;
    }
}
