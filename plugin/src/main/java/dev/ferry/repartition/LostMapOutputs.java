package dev.ferry.repartition;

import java.io.Serializable;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The map outputs of one executor that a reduce task could not fetch because that executor is gone
 * ({@link ExecutorGone}): the executor, the map indexes whose blocks of the task's partition it held,
 * and why it counts as gone (the fetch error, or the driver no longer knowing it).
 */
record LostMapOutputs(String executorId, List<Integer> mapIndexes, String why)
        implements Serializable
{
    private static final long serialVersionUID = 1L;

    LostMapOutputs
    {
        requireNonNull(executorId, "executorId is null");
        mapIndexes = List.copyOf(requireNonNull(mapIndexes, "mapIndexes is null"));
        requireNonNull(why, "why is null");
    }
}
