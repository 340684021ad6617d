package dev.ferry.gds.decode.cuda;

import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.gds.device.DeviceTarget;


import static java.util.Objects.requireNonNull;

/**
 * The Java emulation of the decode kernels behind the device decoder on any backend: an output
 * buffer handed over as an Arrow buffer is copied into a buffer of the target's device memory, and
 * a borrowed device buffer (a resident column chunk) is copied into emulated memory (the only steps
 * a GPU does not take: there the kernels write the target's buffers and read the chunk directly).
 * Those copies go through the target's stream, not the reader's counters.
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
    public long borrow(DeviceBuffer buffer, long offset, long length)
    {
        return KernelMemoryCopies.borrow(this, target, buffer, offset, length);
    }

    @Override
    public void giveBack(long address)
    {
        free(address);
    }

    @Override
    public DeviceBuffer handOver(long address)
    {
        return KernelMemoryCopies.handOver(this, target, address, sizeOf(address));
    }
}
