package dev.ferry.device.cuda;

import dev.ferry.device.CopyRoute;
import dev.ferry.device.memory.NativeMemory;
import dev.ferry.device.spi.BackendEvent;
import dev.ferry.device.spi.BackendStream;
import org.bytedeco.cuda.cudart.CUevent_st;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.javacpp.Pointer;

import java.nio.ByteBuffer;

/**
 * A non-blocking CUDA stream. Buffer copies use {@code cudaMemcpyAsync} with
 * {@code cudaMemcpyDefault} (unified addressing tells the direction) or
 * {@code cudaMemcpyPeerAsync} between devices; copies from and to Java buffers synchronize
 * before returning, since pageable Java memory may move or be reused afterwards.
 */
final class CudaStream
        implements BackendStream
{
    private final int device;
    private final CUstream_st stream;

    CudaStream(int device)
    {
        this.device = device;
        CudaErrors.check(cudart.cudaSetDevice(device), "cudaSetDevice(" + device + ")");
        CUstream_st created = new CUstream_st();
        CudaErrors.check(cudart.cudaStreamCreateWithFlags(created, cudart.cudaStreamNonBlocking), "cudaStreamCreateWithFlags on device " + device);
        this.stream = created;
    }

    @Override
    public void copy(CopyRoute route, NativeMemory source, long sourceOffset, NativeMemory target, long targetOffset, long length)
    {
        CudaMemory from = CudaBackend.cudaMemory(source);
        CudaMemory to = CudaBackend.cudaMemory(target);
        CudaErrors.check(cudart.cudaSetDevice(device), "cudaSetDevice(" + device + ")");
        // An IPC import is a mapping in this (the importing) device's context, opened with lazy peer access: a plain async copy in
        // that context reaches the exporter's GPU over NVLink or PCIe P2P. cudaMemcpyPeerAsync would name the exporter's ordinal and
        // so its context, which the reader must not create; it is for this process's own memory on two devices.
        if (route == CopyRoute.PEER && from.importingDevice().isEmpty() && to.importingDevice().isEmpty()) {
            CudaErrors.check(cudart.cudaMemcpyPeerAsync(to.at(targetOffset), to.location().device(), from.at(sourceOffset), from.location().device(), length, stream),
                    "cudaMemcpyPeerAsync of " + length + " bytes from " + from.describe() + " to " + to.describe());
            return;
        }
        CudaErrors.check(cudart.cudaMemcpyAsync(to.at(targetOffset), from.at(sourceOffset), length, cudart.cudaMemcpyDefault, stream),
                "cudaMemcpyAsync (" + route + ") of " + length + " bytes from " + from.describe() + " to " + to.describe());
    }

    @Override
    public void copyFromHost(ByteBuffer source, NativeMemory target, long targetOffset)
    {
        ByteBuffer direct = source.isDirect() ? source : ByteBuffer.allocateDirect(source.remaining()).put(source.duplicate()).flip();
        CudaMemory to = CudaBackend.cudaMemory(target);
        CudaErrors.check(cudart.cudaSetDevice(device), "cudaSetDevice(" + device + ")");
        CudaErrors.check(cudart.cudaMemcpyAsync(to.at(targetOffset), hostAddress(direct), direct.remaining(), cudart.cudaMemcpyDefault, stream),
                "cudaMemcpyAsync of " + direct.remaining() + " host bytes to " + to.describe());
        synchronize();
    }

    @Override
    public void copyToHost(NativeMemory source, long sourceOffset, ByteBuffer target)
    {
        ByteBuffer direct = target.isDirect() ? target : ByteBuffer.allocateDirect(target.remaining());
        CudaMemory from = CudaBackend.cudaMemory(source);
        CudaErrors.check(cudart.cudaSetDevice(device), "cudaSetDevice(" + device + ")");
        CudaErrors.check(cudart.cudaMemcpyAsync(hostAddress(direct), from.at(sourceOffset), direct.remaining(), cudart.cudaMemcpyDefault, stream),
                "cudaMemcpyAsync of " + direct.remaining() + " bytes from " + from.describe() + " to host");
        synchronize();
        if (direct != target) {
            target.put(target.position(), direct, 0, direct.remaining());
        }
    }

    private static Pointer hostAddress(ByteBuffer direct)
    {
        return HostPointers.at(direct);
    }

    @Override
    public BackendEvent record()
    {
        CudaErrors.check(cudart.cudaSetDevice(device), "cudaSetDevice(" + device + ")");
        CUevent_st event = new CUevent_st();
        CudaErrors.check(cudart.cudaEventCreate(event), "cudaEventCreate");
        CudaEvent recorded = new CudaEvent(event);
        CudaErrors.check(cudart.cudaEventRecord(event, stream), "cudaEventRecord");
        return recorded;
    }

    @Override
    public void waitFor(BackendEvent event)
    {
        if (!(event instanceof CudaEvent)) {
            throw new IllegalArgumentException("Cannot wait for an event of another backend");
        }
        CudaErrors.check(cudart.cudaStreamWaitEvent(stream, ((CudaEvent) event).handle(), 0), "cudaStreamWaitEvent");
    }

    @Override
    public void synchronize()
    {
        CudaErrors.check(cudart.cudaStreamSynchronize(stream), "cudaStreamSynchronize on device " + device);
    }

    @Override
    public void close()
    {
        CudaErrors.check(cudart.cudaStreamDestroy(stream), "cudaStreamDestroy");
    }
}
