package dev.ferry.shuffle.exchange;

import org.apache.spark.Partition;
import org.apache.spark.sql.execution.ShufflePartitionSpec;

import static java.util.Objects.requireNonNull;

/** One reduce task of a Ferry shuffle read: which map and reduce ranges it covers. */
final class ShuffledBatchPartition
        implements Partition
{
    private static final long serialVersionUID = 1L;

    private final int index;
    private final ShufflePartitionSpec spec;

    ShuffledBatchPartition(int index, ShufflePartitionSpec spec)
    {
        this.index = index;
        this.spec = requireNonNull(spec, "spec is null");
    }

    @Override
    public int index()
    {
        return index;
    }

    ShufflePartitionSpec spec()
    {
        return spec;
    }

    @Override
    public int hashCode()
    {
        return index;
    }

    @Override
    public boolean equals(Object other)
    {
        return other instanceof ShuffledBatchPartition && ((ShuffledBatchPartition) other).index == index;
    }
}
