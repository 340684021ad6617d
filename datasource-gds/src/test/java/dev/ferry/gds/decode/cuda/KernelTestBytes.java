package dev.ferry.gds.decode.cuda;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Bytes in and out of a kernels' memory for kernel tests: an upload into a new allocation, a download, little-endian longs. */
final class KernelTestBytes
{
    private KernelTestBytes() {}

    /** {@code bytes} in a new allocation of {@code kernels} (at least 8 bytes), whose address is returned. */
    static long upload(DecodeKernels kernels, byte[] bytes)
    {
        long address = kernels.allocate(Math.max(8, bytes.length));
        kernels.upload(bytes, 0, bytes.length, address);
        return address;
    }

    static byte[] download(DecodeKernels kernels, long address, int length)
    {
        byte[] bytes = new byte[length];
        kernels.download(address, bytes, 0, length);
        return bytes;
    }

    static byte[] longs(long[] values)
    {
        ByteBuffer buffer = ByteBuffer.allocate(8 * values.length).order(ByteOrder.LITTLE_ENDIAN);
        for (long value : values) {
            buffer.putLong(value);
        }
        return buffer.array();
    }
}
