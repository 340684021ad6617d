package dev.ferry.transport.verbs;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.device.host.ByteBufferMemory;
import dev.ferry.device.memory.DeviceBuffer;

import java.nio.ByteBuffer;

/**
 * Turns a device-runtime buffer into memory a protection domain can register. Simulated GPU memory
 * and host-backend memory are JVM-addressable ({@link ByteBufferMemory}), so the simulated verbs
 * layer registers them directly. CUDA device memory needs its raw pointer for
 * {@code regMr(long, int, int)}, which the device runtime does not expose yet: that case is a
 * clear error naming what is missing, not a guess at an address.
 */
public final class DeviceRegistrations
{
    private DeviceRegistrations() {}

    public static RegistrableMemory of(DeviceBuffer buffer)
    {
        buffer.checkOpen("register with the NIC");
        if (!(buffer.memory() instanceof ByteBufferMemory memory)) {
            throw new FerryException(ErrorCategory.INTERNAL_ERROR, "Cannot register " + buffer.name()
                    + " with the NIC: the device runtime does not expose CUDA device pointers yet (GPUDIRECT_RDMA needs DeviceRuntime to hand out the pointer)");
        }
        ByteBuffer view = memory.buffer().slice(Math.toIntExact(buffer.memoryOffset()), Math.toIntExact(buffer.length()));
        return buffer.location().isDevice()
                ? RegistrableMemory.simulatedDevice(buffer.location().device(), view)
                : RegistrableMemory.host(view);
    }
}
