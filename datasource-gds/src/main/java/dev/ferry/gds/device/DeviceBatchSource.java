package dev.ferry.gds.device;

import dev.ferry.device.DeviceRuntime;

import java.io.IOException;
import java.util.Optional;

/**
 * Where a partition's device batches come from, one at a time, all on one device of one runtime:
 * the gds device reader (batches decoded from Parquet) or a repartition's reduce side (batches
 * fetched from every map's GPU). The caller owns and closes each batch it takes.
 */
public interface DeviceBatchSource
{
    /** The next batch in device memory, its copies complete; empty after the last. */
    Optional<DeviceBatch> next()
            throws IOException;

    DeviceRuntime runtime();

    /** The ordinal of the GPU the batches are on. */
    int device();
}
