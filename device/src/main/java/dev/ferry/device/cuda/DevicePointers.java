package dev.ferry.device.cuda;

import dev.ferry.device.memory.DeviceBuffer;

/**
 * The raw device address of a CUDA backend buffer, for kernel arguments
 * ({@code cuLaunchKernel} takes device pointers as 64-bit values). Only for buffers the CUDA
 * backend allocated; anything else is refused by {@link CudaBackend#cudaMemory}.
 */
public final class DevicePointers
{
    private DevicePointers() {}

    public static long address(DeviceBuffer buffer)
    {
        buffer.checkOpen("take the device address of");
        return CudaBackend.cudaMemory(buffer.memory()).address(buffer.memoryOffset());
    }
}
