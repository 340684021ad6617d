package dev.ferry.device.cuda;

import org.bytedeco.cuda.global.cudart;

import java.util.function.Supplier;

/**
 * The first code that touches the CUDA presets; loaded only by {@link CudaProbe} through
 * reflection, which turns any load failure into an "unavailable" verdict.
 */
final class CudaNativeProbe
        implements Supplier<CudaAvailability>
{
    @Override
    public CudaAvailability get()
    {
        int[] count = new int[1];
        int status = cudart.cudaGetDeviceCount(count);
        if (status != cudart.cudaSuccess) {
            return CudaAvailability.unavailable("cudaGetDeviceCount failed: " + CudaErrors.describe(status));
        }
        if (count[0] == 0) {
            return CudaAvailability.unavailable("no CUDA device is visible");
        }
        int[] driver = new int[1];
        int[] runtime = new int[1];
        cudart.cudaDriverGetVersion(driver);
        cudart.cudaRuntimeGetVersion(runtime);
        return CudaAvailability.available(count[0], count[0] + " device(s), driver API " + driver[0] + ", runtime " + runtime[0]);
    }
}
