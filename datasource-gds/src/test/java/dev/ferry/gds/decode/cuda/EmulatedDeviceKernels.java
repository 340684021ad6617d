package dev.ferry.gds.decode.cuda;

import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.gds.device.DeviceTarget;

import java.nio.ByteBuffer;

import static java.util.Objects.requireNonNull;

/**
 * The Java emulation of the decode kernels behind the device decoder on any backend: an output
 * buffer handed over as an Arrow buffer is copied into a buffer of the target's device memory
 * (the only step a GPU does not take: there the kernels write the target's buffers directly).
 */
public class EmulatedDeviceKernels
        extends KernelEmulation
        implements DeviceBufferKernels
{
    private final DeviceTarget target;

    public EmulatedDeviceKernels(DeviceTarget target)
    {
        this.target = requireNonNull(target, "target is null");
    }

    @Override
    public DeviceBuffer handOver(long address)
    {
        int size = Math.toIntExact(sizeOf(address));
        byte[] bytes = new byte[size];
        download(address, bytes, 0, size);
        free(address);
        DeviceBuffer buffer = target.runtime().deviceAllocator(target.device()).allocate(size);
        target.stream().copyFromHost(ByteBuffer.wrap(bytes), buffer, 0);
        return buffer;
    }
}
