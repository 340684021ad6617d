package dev.ferry.device.cuda;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.javacpp.BytePointer;

/** Turns CUDA runtime status codes into exceptions that say what was being done. */
final class CudaErrors
{
    private CudaErrors() {}

    static String describe(int status)
    {
        BytePointer text = cudart.cudaGetErrorString(status);
        return (text == null ? "unknown error" : text.getString()) + " (cudaError " + status + ")";
    }

    static void check(int status, String operation)
    {
        if (status != cudart.cudaSuccess) {
            throw new FerryException(ErrorCategory.EXTERNAL, operation + " failed: " + describe(status));
        }
    }
}
