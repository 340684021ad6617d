package dev.ferry.shuffle;

import org.apache.spark.ShuffleDependency;
import org.apache.spark.shuffle.BaseShuffleHandle;

/** The handle of a shuffle whose dependency carries an {@link ArrowShuffleSerializer}: Ferry writes and reads it. */
public final class FerryShuffleHandle<K, V, C>
        extends BaseShuffleHandle<K, V, C>
{
    private static final long serialVersionUID = 1L;

    public FerryShuffleHandle(int shuffleId, ShuffleDependency<K, V, C> dependency)
    {
        super(shuffleId, dependency);
    }

    public ArrowShuffleSerializer serializer()
    {
        return (ArrowShuffleSerializer) dependency().serializer();
    }

    public int numPartitions()
    {
        return dependency().partitioner().numPartitions();
    }
}
