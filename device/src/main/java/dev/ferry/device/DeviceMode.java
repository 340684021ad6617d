package dev.ferry.device;

/** Which backend {@code spark.ferry.device} asks for. */
public enum DeviceMode
{
    /** CUDA when its libraries load and it sees a GPU, otherwise {@link #HOST}; the reason is logged. */
    AUTO,
    /** Real GPUs through the JavaCPP CUDA presets; fails with the probe's reason when unavailable. */
    CUDA,
    /** Off-heap arenas in shared memory that behave like GPUs, for CI and local tests. */
    SIMULATED,
    /** No GPU: device buffers are host memory and GPU-only routes are refused. */
    HOST,
}
