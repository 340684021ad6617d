package dev.ferry.shuffle.transport.ipc;

import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.device.pool.DeviceMemoryPool;

import static java.util.Objects.requireNonNull;

/**
 * Where the device routes land fetched blocks on this executor: buffers of the GPU memory pool
 * the device store counts its blocks in. Landing buffers are short-lived but can be as large as a
 * block; drawing them from the pool (not the device's root allocator) keeps the GPU within
 * {@code spark.ferry.device.memoryLimit}, and a landing that does not fit spills stored map
 * outputs or waits, as any other pool allocation does.
 */
public record DeviceLanding(DeviceRuntime runtime, DeviceMemoryPool pool)
{
    public DeviceLanding
    {
        requireNonNull(runtime, "runtime is null");
        requireNonNull(pool, "pool is null");
    }

    /** The GPU the pool's memory is on. */
    public int device()
    {
        return pool.allocator().location().device();
    }

    /** A landing buffer of {@code bytes}, counted in the pool until closed. */
    public DeviceBuffer allocate(long bytes)
    {
        return pool.allocate(bytes);
    }
}
