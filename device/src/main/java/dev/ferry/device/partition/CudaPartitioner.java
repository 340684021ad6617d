package dev.ferry.device.partition;

import dev.ferry.device.cuda.DevicePointers;
import dev.ferry.device.kernel.KernelLauncher;
import dev.ferry.device.kernel.KernelSource;
import dev.ferry.device.kernel.LoadedKernel;
import dev.ferry.device.memory.DeviceBuffer;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The partition kernels on one GPU, the device the caller names (any CUDA ordinal):
 * {@code spark_partition.cu} compiled once per process and architecture by NVRTC, loaded once per
 * device into that device's primary context (module cached by {@link KernelLauncher} per device and
 * source), each launch made on that device, checked and waited for. Buffers are the CUDA backend's,
 * passed as device pointers. Reached only through {@link DevicePartitioners#choose} after the kernel
 * probe said available (this class names JavaCPP classes through the launcher). Never yet run on a GPU.
 */
final class CudaPartitioner
        extends LaunchingPartitioner
{
    static final List<String> KERNELS = List.of("ferry_murmur3_seed", "ferry_murmur3_fixed", "ferry_murmur3_bytes", "ferry_partition_ids", "ferry_partition_clear",
            "ferry_partition_histogram", "ferry_partition_scan_chunks", "ferry_partition_starts", "ferry_partition_scatter", "ferry_partition_null_counts",
            "ferry_gather_fixed", "ferry_gather_bits", "ferry_gather_string_lengths", "ferry_partition_sum_chunks", "ferry_partition_sum_starts",
            "ferry_partition_sum_write", "ferry_partition_string_bounds", "ferry_gather_string_offsets", "ferry_gather_string_bytes");

    private final int device;
    private final String architecture;
    private final Map<String, LoadedKernel> kernels = new HashMap<>();

    // Public for the reflective construction in DevicePartitioners.
    public CudaPartitioner(int device)
    {
        this.device = device;
        KernelLauncher launcher = KernelLauncher.shared();
        this.architecture = launcher.architecture(device);
        KernelSource source = KernelSource.load("spark_partition.cu");
        for (String name : KERNELS) {
            kernels.put(name, launcher.load(device, source, name));
        }
    }

    @Override
    public String describe()
    {
        return "the partition kernels on " + architecture + " device " + device;
    }

    @Override
    protected void run(String kernel, int grid, int block, Object... arguments)
    {
        Object[] values = new Object[arguments.length];
        for (int i = 0; i < arguments.length; i++) {
            Object argument = arguments[i];
            values[i] = argument == null ? (Object) 0L : argument instanceof DeviceBuffer buffer ? (Object) DevicePointers.address(buffer) : argument;
        }
        // The kernel makes its own device current on this thread before the launch.
        LoadedKernel loaded = kernels.get(kernel);
        if (loaded == null) {
            throw new IllegalStateException("partition kernel " + kernel + " is not loaded");
        }
        loaded.launchAndWait(grid, block, values);
    }
}
