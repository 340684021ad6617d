package dev.ferry.shuffle.transport.rdma.verbs;

import java.nio.ByteBuffer;
import java.util.Set;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.device.DeviceMemoryExport;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.host.ByteBufferMemory;
import dev.ferry.device.memory.DeviceBuffer;

import static java.util.Objects.requireNonNull;

/**
 * Registers device-runtime buffers with a protection domain. Simulated GPU memory and host-backend
 * memory are JVM-addressable ({@link ByteBufferMemory}), so they are registered through their
 * bytes, which the simulated verbs layer accepts. CUDA device memory is registered by its device
 * pointer ({@code regMr(long, int, int)}, GPUDirect RDMA through {@code nvidia_peermem}), which
 * {@link DeviceRuntime#exportForRdma} lends out; the DiSNI domain splits it into regions of at
 * most 2 GiB - 1 like any other memory.
 */
public final class DeviceRegistrations
{
    private DeviceRegistrations() {}

    /**
     * JVM-addressable memory (simulated GPU or host backend) as registrable bytes. CUDA memory is
     * refused: its registration must hold the buffer, which only {@link #register} arranges.
     */
    public static RegistrableMemory of(DeviceBuffer buffer)
    {
        buffer.checkOpen("register with the NIC");
        if (!(buffer.memory() instanceof ByteBufferMemory memory)) {
            throw new FerryException(ErrorCategory.INTERNAL_ERROR, "Cannot register " + buffer.name()
                    + " with the NIC through its bytes: it is not JVM-addressable; register CUDA device memory by device pointer with"
                    + " DeviceRegistrations.register(runtime, buffer, domain, access), which keeps the buffer alive while registered");
        }
        ByteBuffer view = memory.buffer().slice(Math.toIntExact(buffer.memoryOffset()), Math.toIntExact(buffer.length()));
        return buffer.location().isDevice()
                ? RegistrableMemory.simulatedDevice(buffer.location().device(), view)
                : RegistrableMemory.host(view);
    }

    /**
     * Registers {@code buffer} with {@code domain}: JVM-addressable memory exactly as
     * {@code domain.register(of(buffer), access)}; any other memory by device pointer, as
     * {@link #registerDevicePointer} does.
     *
     * @throws VerbsException when the NIC refuses the memory
     * @throws FerryException when the buffer is closed, or its backend has no device pointer for it
     */
    public static Registration register(DeviceRuntime runtime, DeviceBuffer buffer, ProtectionDomain domain, Set<Access> access)
            throws VerbsException
    {
        requireNonNull(runtime, "runtime is null");
        requireNonNull(domain, "domain is null");
        buffer.checkOpen("register with the NIC");
        if (buffer.memory() instanceof ByteBufferMemory) {
            return domain.register(of(buffer), access);
        }
        return registerDevicePointer(runtime, buffer, domain, access);
    }

    /**
     * Registers the CUDA device memory of {@code buffer} by its device pointer. The registration
     * holds an export of the buffer, so the memory is not freed while the NIC may read or write
     * it, even once every other handle is closed; deregistering releases it after the regions.
     * The runtime refuses memory without a device pointer (simulated, host, pinned, IPC imports),
     * naming the buffer and the backend.
     *
     * @throws VerbsException when the NIC refuses the memory (no {@code nvidia_peermem}, BAR1 full,
     *         or a simulated NIC, which cannot address a device pointer)
     */
    public static Registration registerDevicePointer(DeviceRuntime runtime, DeviceBuffer buffer, ProtectionDomain domain, Set<Access> access)
            throws VerbsException
    {
        requireNonNull(runtime, "runtime is null");
        requireNonNull(domain, "domain is null");
        DeviceMemoryExport export = runtime.exportForRdma(buffer);
        boolean success = false;
        try {
            RegistrableMemory memory = RegistrableMemory.devicePointer(export.device(), export.address(), export.length());
            Registration registration = domain.register(memory, access);
            Registration holding = new Registration(memory, registration.regions(), regions -> deregisterThenRelease(registration, export));
            success = true;
            return holding;
        }
        finally {
            if (!success) {
                export.close();
            }
        }
    }

    private static void deregisterThenRelease(Registration registration, DeviceMemoryExport export)
            throws VerbsException
    {
        try {
            registration.deregister();
        }
        catch (VerbsException | RuntimeException e) {
            // The regions may still be live in the NIC; freeing the memory under them could let a
            // late DMA write into someone else's allocation, so the export (and memory) stays held.
            throw new VerbsException(e.getMessage() + "; " + export + " stays open, keeping the memory, since the NIC may still hold it", e);
        }
        export.close();
    }
}
