package dev.ferry.device.partition;

import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.kernel.KernelAvailability;
import dev.ferry.device.kernel.KernelProbe;

import java.lang.reflect.InvocationTargetException;
import java.util.Optional;

/**
 * Chooses the partition kernels for a runtime's device: on the {@code cuda} backend the kernels on
 * the GPU the caller names (any of the runtime's devices, such as the one Spark assigned the executor;
 * loaded into that device's own context), built only after the kernel probe said NVRTC and a device
 * are there (reached by reflection, so a machine without libcuda/libnvrtc gets the probe's reason,
 * never an {@link UnsatisfiedLinkError}); on the simulated and host backends, whose device memory the JVM
 * addresses, the Java emulation. Where none can run the choice carries the reason and no partitioner.
 */
public final class DevicePartitioners
{
    public static final String CUDA_BACKEND = "cuda";
    private static final String CUDA_IMPLEMENTATION = "dev.ferry.device.partition.CudaPartitioner";

    private DevicePartitioners() {}

    /** A partitioner, or the reason there is none. */
    public record Choice(Optional<DevicePartitioner> partitioner, String reason) {}

    public static Choice choose(DeviceRuntime runtime, int device)
    {
        if (!CUDA_BACKEND.equals(runtime.backendName())) {
            return new Choice(Optional.of(new EmulatedPartitioner()), "backend " + runtime.backendName() + ": the Java emulation of the partition kernels on its device memory");
        }
        KernelAvailability availability = KernelProbe.availability();
        if (!availability.available()) {
            return new Choice(Optional.empty(), "CUDA kernels unavailable: " + availability.reason());
        }
        if (device < 0 || device >= runtime.deviceCount()) {
            return new Choice(Optional.empty(), "device " + device + " is not one of the runtime's " + runtime.deviceCount() + " devices");
        }
        try {
            DevicePartitioner partitioner = (DevicePartitioner) Class.forName(CUDA_IMPLEMENTATION).getConstructor(int.class).newInstance(device);
            return new Choice(Optional.of(partitioner), partitioner.describe());
        }
        catch (InvocationTargetException e) {
            return new Choice(Optional.empty(), "the partition kernels did not load on device " + device + ": " + e.getCause());
        }
        catch (ReflectiveOperationException | LinkageError e) {
            return new Choice(Optional.empty(), "the partition kernels did not load on device " + device + ": " + e);
        }
    }
}
