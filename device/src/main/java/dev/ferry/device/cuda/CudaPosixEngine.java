package dev.ferry.device.cuda;

import dev.ferry.device.cufile.ReadPathVerdict;
import dev.ferry.device.memory.MemoryLocation;
import dev.ferry.device.memory.NativeMemory;
import dev.ferry.device.spi.ChannelReadEngine;
import org.bytedeco.cuda.global.cudart;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

import static java.util.Objects.requireNonNull;

/**
 * The CUDA backend's fallback read path: a buffered pread into a pinned bounce buffer, then a
 * host-to-device copy. Pinned targets are read into directly.
 */
final class CudaPosixEngine
        extends ChannelReadEngine
{
    private static final int BOUNCE_SIZE = 8 << 20;

    private final CudaBackend backend;
    private CudaMemory bounce;

    CudaPosixEngine(CudaBackend backend, FileChannel channel, ReadPathVerdict verdict)
    {
        super(channel, verdict);
        this.backend = requireNonNull(backend, "backend is null");
    }

    @Override
    public synchronized long read(long fileOffset, long length, NativeMemory target, long targetOffset)
            throws IOException
    {
        CudaMemory memory = CudaBackend.cudaMemory(target);
        if (memory.kind() == CudaMemory.Kind.PINNED) {
            return readInto(hostView(memory, targetOffset, length), fileOffset);
        }
        if (bounce == null) {
            bounce = (CudaMemory) backend.allocate(MemoryLocation.pinnedHost(), BOUNCE_SIZE);
        }
        int chunk = (int) Math.min(length, BOUNCE_SIZE);
        int count = (int) readInto(hostView(bounce, 0, chunk), fileOffset);
        if (count > 0) {
            CudaErrors.check(cudart.cudaSetDevice(memory.location().device()), "cudaSetDevice");
            CudaErrors.check(cudart.cudaMemcpy(memory.at(targetOffset), bounce.at(0), count, cudart.cudaMemcpyDefault), "cudaMemcpy of a POSIX read into " + memory.describe());
        }
        return count;
    }

    static ByteBuffer hostView(CudaMemory pinned, long offset, long length)
    {
        return HostPointers.view(pinned.at(offset), length);
    }

    @Override
    public synchronized void close()
            throws IOException
    {
        try {
            super.close();
        }
        finally {
            if (bounce != null) {
                backend.free(bounce);
                bounce = null;
            }
        }
    }
}
