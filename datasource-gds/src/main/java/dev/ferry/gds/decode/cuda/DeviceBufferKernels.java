package dev.ferry.gds.decode.cuda;

import dev.ferry.device.memory.DeviceBuffer;

/** Decode kernels whose memory is the executor's device buffers, handed to the caller as Arrow buffers. */
public interface DeviceBufferKernels
        extends DecodeKernels
{
    /** The buffer allocated at {@code address}, no longer freed by these kernels: the caller owns it. */
    DeviceBuffer handOver(long address);
}
