package dev.ferry.gds.decode.cuda;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.device.kernel.KernelAvailability;
import dev.ferry.device.kernel.KernelProbe;
import dev.ferry.device.memory.BufferAllocator;

import java.lang.reflect.InvocationTargetException;

/**
 * Builds the CUDA decode kernels only where the kernel probe said NVRTC and a device are there: the
 * implementation class names JavaCPP's CUDA classes, so it is reached by reflection, and a machine
 * without libcuda/libnvrtc gets the probe's reason as a {@link FerryException}, never an
 * {@link UnsatisfiedLinkError}.
 */
public final class DeviceKernelsLoader
{
    private static final String IMPLEMENTATION = "dev.ferry.gds.decode.cuda.CudaDecodeKernels";

    private DeviceKernelsLoader() {}

    /** Why the device decoder cannot run here, or empty where it can. */
    public static java.util.Optional<String> unavailableReason()
    {
        KernelAvailability availability = KernelProbe.availability();
        return availability.available() ? java.util.Optional.empty() : java.util.Optional.of("CUDA kernels unavailable: " + availability.reason());
    }

    public static DeviceBufferKernels load(BufferAllocator allocator)
    {
        java.util.Optional<String> unavailable = unavailableReason();
        if (unavailable.isPresent()) {
            throw new FerryException(ErrorCategory.EXTERNAL, "The device decoder cannot run: " + unavailable.get());
        }
        try {
            return (DeviceBufferKernels) Class.forName(IMPLEMENTATION).getConstructor(BufferAllocator.class).newInstance(allocator);
        }
        catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new FerryException(ErrorCategory.EXTERNAL, "The device decoder's kernels did not load: " + e.getCause(), e.getCause());
        }
        catch (ReflectiveOperationException | LinkageError e) {
            throw new FerryException(ErrorCategory.EXTERNAL, "The device decoder's kernels did not load: " + e, e);
        }
    }
}
