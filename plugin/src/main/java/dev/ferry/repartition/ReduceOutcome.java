package dev.ferry.repartition;

import java.io.Serializable;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * What one reduce task of a device repartition sends the driver: the function's result, or, when
 * a map's executor was gone before the function ran, the lost map outputs (the function did not
 * run; the driver reruns those maps and this partition).
 */
sealed interface ReduceOutcome<R extends Serializable>
        extends Serializable
{
    int partition();

    /** The function ran on every row of the partition. */
    record Done<R extends Serializable>(RepartitionedResult<R> result)
            implements ReduceOutcome<R>
    {
        private static final long serialVersionUID = 1L;

        public Done
        {
            requireNonNull(result, "result is null");
        }

        @Override
        public int partition()
        {
            return result.partition();
        }
    }

    /** Some of the partition's blocks are on executors that are gone; nothing of the partition was handed to the function. */
    record MapsLost<R extends Serializable>(int partition, String reducerExecutorId, List<LostMapOutputs> lost)
            implements ReduceOutcome<R>
    {
        private static final long serialVersionUID = 1L;

        public MapsLost
        {
            requireNonNull(reducerExecutorId, "reducerExecutorId is null");
            lost = List.copyOf(requireNonNull(lost, "lost is null"));
            if (lost.isEmpty()) {
                throw new IllegalArgumentException("Partition " + partition + " reports lost maps but names none");
            }
        }
    }
}
