package dev.ferry.device.kernel;

import org.bytedeco.cuda.global.cudart;
import org.bytedeco.cuda.global.nvrtc;

import java.util.function.Supplier;

/**
 * The first code that touches NVRTC and the driver API; loaded only by {@link KernelProbe}
 * through reflection, which turns any load failure into an "unavailable" verdict.
 */
final class KernelNativeProbe
        implements Supplier<KernelAvailability>
{
    @Override
    public KernelAvailability get()
    {
        int[] major = new int[1];
        int[] minor = new int[1];
        int status = nvrtc.nvrtcVersion(major, minor);
        if (status != nvrtc.NVRTC_SUCCESS) {
            return KernelAvailability.unavailable("nvrtcVersion failed: " + DriverErrors.describeNvrtc(status));
        }
        int result = cudart.cuInit(0);
        if (result != cudart.CUDA_SUCCESS) {
            return KernelAvailability.unavailable("cuInit failed: " + DriverErrors.describe(result));
        }
        int[] device = new int[1];
        result = cudart.cuDeviceGet(device, 0);
        if (result != cudart.CUDA_SUCCESS) {
            return KernelAvailability.unavailable("cuDeviceGet(0) failed: " + DriverErrors.describe(result));
        }
        return KernelAvailability.available("NVRTC " + major[0] + "." + minor[0] + ", device 0 is " + KernelLauncher.architectureOf(device[0]));
    }
}
