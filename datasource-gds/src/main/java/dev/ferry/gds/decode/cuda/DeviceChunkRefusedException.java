package dev.ferry.gds.decode.cuda;

/**
 * The device decoder gives a chunk back to the CPU after it uploaded it: a page body did not
 * decompress on the device (nvCOMP's per-page status, or its size disagreed with the page header),
 * or the framing read from the decompressed bytes is one the kernels do not take. The message is
 * the reason the fallback is counted under; the CPU decoder then reads the chunk, and reports a
 * corrupt page with its file, column and offset.
 */
public final class DeviceChunkRefusedException
        extends RuntimeException
{
    public DeviceChunkRefusedException(String reason)
    {
        super(reason);
    }
}
