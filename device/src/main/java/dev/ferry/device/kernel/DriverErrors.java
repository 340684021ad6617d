package dev.ferry.device.kernel;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.cuda.global.nvrtc;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.PointerPointer;

/** Turns CUDA driver API results (CUresult), runtime statuses (cudaError) and NVRTC results into exceptions that say what was being done. */
final class DriverErrors
{
    private DriverErrors() {}

    static String describe(int result)
    {
        try (PointerPointer<BytePointer> text = new PointerPointer<>(1)) {
            if (cudart.cuGetErrorString(result, text) != cudart.CUDA_SUCCESS || text.get(0) == null) {
                return "unknown error (CUresult " + result + ")";
            }
            return new BytePointer(text.get(0)).getString() + " (CUresult " + result + ")";
        }
    }

    static void check(int result, String operation)
    {
        if (result != cudart.CUDA_SUCCESS) {
            throw new FerryException(ErrorCategory.EXTERNAL, operation + " failed: " + describe(result));
        }
    }

    /** For the CUDA runtime's status codes (cudaError), which the kernels' callers share with the cuda backend. */
    static void checkRuntime(int status, String operation)
    {
        if (status != cudart.cudaSuccess) {
            BytePointer text = cudart.cudaGetErrorString(status);
            throw new FerryException(ErrorCategory.EXTERNAL, operation + " failed: " + (text == null ? "unknown error" : text.getString()) + " (cudaError " + status + ")");
        }
    }

    static String describeNvrtc(int result)
    {
        BytePointer text = nvrtc.nvrtcGetErrorString(result);
        return (text == null ? "unknown error" : text.getString()) + " (nvrtcResult " + result + ")";
    }
}
