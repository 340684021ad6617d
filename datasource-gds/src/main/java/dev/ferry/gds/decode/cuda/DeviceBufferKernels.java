package dev.ferry.gds.decode.cuda;

import dev.ferry.device.memory.DeviceBuffer;

/** Decode kernels whose memory is the executor's device buffers, handed to the caller as Arrow buffers. */
public interface DeviceBufferKernels
        extends DecodeKernels
{
    /** The buffer allocated at {@code address}, no longer freed by these kernels: the caller owns it. */
    DeviceBuffer handOver(long address);

    /**
     * The address, in these kernels' memory, of bytes {@code [offset, offset + length)} of
     * {@code buffer}, a buffer of the device these kernels run on that the caller keeps owning (a
     * column chunk a GDS read left in device memory): the kernels read it in place. Valid until
     * {@link #giveBack}, which must come before the buffer is closed.
     */
    long borrow(DeviceBuffer buffer, long offset, long length);

    /** Ends a {@link #borrow}; the buffer is the caller's again, untouched. */
    void giveBack(long address);
}
