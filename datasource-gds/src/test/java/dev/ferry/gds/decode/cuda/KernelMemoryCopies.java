package dev.ferry.gds.decode.cuda;

import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.gds.device.DeviceTarget;

import java.nio.ByteBuffer;

/**
 * The two copies test kernels make between their own memory and the target's device memory, which
 * a GPU never makes (there the kernels read and write the target's buffers): an output handed over
 * as an Arrow buffer, and a resident chunk borrowed for the kernels to read. Both go through the
 * target's stream, not the reader's counters.
 */
final class KernelMemoryCopies
{
    private KernelMemoryCopies() {}

    /** Moves the allocation at {@code address} of {@code kernels} ({@code size} bytes) into a new buffer of the target's device memory, freeing it. */
    static DeviceBuffer handOver(DecodeKernels kernels, DeviceTarget target, long address, long size)
    {
        byte[] bytes = new byte[Math.toIntExact(size)];
        kernels.download(address, bytes, 0, bytes.length);
        kernels.free(address);
        DeviceBuffer buffer = target.runtime().deviceAllocator(target.device()).allocate(bytes.length);
        target.stream().copyFromHost(ByteBuffer.wrap(bytes), buffer, 0);
        return buffer;
    }

    /** Copies bytes {@code [offset, offset + length)} of {@code buffer} into a new allocation of {@code kernels} and returns its address. */
    static long borrow(DecodeKernels kernels, DeviceTarget target, DeviceBuffer buffer, long offset, long length)
    {
        buffer.checkRange("borrow for test kernels", offset, length);
        ByteBuffer bytes = ByteBuffer.allocate(Math.toIntExact(length));
        target.stream().copyToHost(buffer, offset, bytes);
        target.stream().synchronize();
        long address = kernels.allocate(Math.max(1, length));
        kernels.upload(bytes.array(), 0, (int) length, address);
        return address;
    }
}
