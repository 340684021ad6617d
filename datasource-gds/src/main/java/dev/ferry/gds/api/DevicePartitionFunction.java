package dev.ferry.gds.api;

import java.io.Serializable;

/**
 * What a GPU consumer runs on each partition of a {@link DeviceBatches} read: it takes the
 * partition's device-resident batches one by one ({@link DevicePartition#nextBatch}) and returns a
 * small serializable result, which goes back to the driver in a {@link PartitionResult}. Shipped to
 * the executors, so it must be serializable (a static class or a lambda capturing only serializable
 * values).
 */
@FunctionalInterface
public interface DevicePartitionFunction<R extends Serializable>
        extends Serializable
{
    R call(DevicePartition partition)
            throws Exception;
}
