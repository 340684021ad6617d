package dev.ferry.shuffle.transport.rdma.verbs;

import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.OptionalLong;

import static java.util.Objects.requireNonNull;

/**
 * Memory a protection domain can register: a direct host buffer, a device pointer (GPUDirect
 * RDMA, needs {@code nvidia_peermem}), or a simulated device range that the JVM can address.
 * Heap buffers are refused here, as DiSNI refuses them (a {@code ClassCastException} there).
 */
public final class RegistrableMemory
{
    /** The device of host memory. */
    public static final int HOST = -1;

    private final int device;
    private final long length;
    private final OptionalLong pointer;
    private final Optional<ByteBuffer> view;
    private final String description;

    private RegistrableMemory(int device, long length, OptionalLong pointer, Optional<ByteBuffer> view, String description)
    {
        if (length <= 0) {
            throw new IllegalArgumentException("Cannot register " + length + " bytes: " + description);
        }
        this.device = device;
        this.length = length;
        this.pointer = requireNonNull(pointer, "pointer is null");
        this.view = requireNonNull(view, "view is null");
        this.description = requireNonNull(description, "description is null");
    }

    /** All of a direct host buffer, from index 0 to its capacity (what DiSNI's ByteBuffer overload registers). */
    public static RegistrableMemory host(ByteBuffer buffer)
    {
        requireNonNull(buffer, "buffer is null");
        if (!buffer.isDirect()) {
            throw new IllegalArgumentException("Only direct buffers can be registered with the NIC, got a heap buffer of " + buffer.capacity() + " bytes");
        }
        return new RegistrableMemory(HOST, buffer.capacity(), OptionalLong.empty(), Optional.of(buffer.duplicate().clear()), "host buffer of " + buffer.capacity() + " bytes");
    }

    /** A CUDA device pointer ({@code cudaMalloc}), registered through {@code regMr(long, int, int)}. */
    public static RegistrableMemory devicePointer(int device, long address, long length)
    {
        if (device < 0) {
            throw new IllegalArgumentException("device ordinal must not be negative: " + device);
        }
        if (address == 0) {
            throw new IllegalArgumentException("null device pointer");
        }
        return new RegistrableMemory(device, length, OptionalLong.of(address), Optional.empty(),
                "device " + device + " pointer 0x" + Long.toHexString(address) + " (" + length + " bytes)");
    }

    /** A simulated GPU's memory, addressable by the JVM; only the simulated verbs layer accepts it. */
    public static RegistrableMemory simulatedDevice(int device, ByteBuffer view)
    {
        requireNonNull(view, "view is null");
        if (device < 0) {
            throw new IllegalArgumentException("device ordinal must not be negative: " + device);
        }
        return new RegistrableMemory(device, view.capacity(), OptionalLong.empty(), Optional.of(view.duplicate().clear()),
                "simulated device " + device + " memory (" + view.capacity() + " bytes)");
    }

    /** Bytes {@code [offset, +length)} of this memory, as the same kind of memory. */
    public RegistrableMemory slice(long offset, long length)
    {
        if (offset < 0 || length <= 0 || offset > this.length - length) {
            throw new IllegalArgumentException("Range [" + offset + ", +" + length + ") is outside the " + this.length + " bytes of " + description);
        }
        String sliceDescription = "[" + offset + ", +" + length + ") of " + description;
        if (pointer.isPresent()) {
            return new RegistrableMemory(device, length, OptionalLong.of(pointer.getAsLong() + offset), Optional.empty(), sliceDescription);
        }
        ByteBuffer bytes = view.orElseThrow().duplicate().clear().slice(Math.toIntExact(offset), Math.toIntExact(length));
        return new RegistrableMemory(device, length, OptionalLong.empty(), Optional.of(bytes), sliceDescription);
    }

    public boolean isDevice()
    {
        return device != HOST;
    }

    /** The device ordinal, or {@link #HOST}. */
    public int device()
    {
        return device;
    }

    public long length()
    {
        return length;
    }

    /** The raw device pointer, present only for {@link #devicePointer}. */
    public OptionalLong pointer()
    {
        return pointer;
    }

    /** The bytes as a buffer (position 0, limit = capacity), present for host and simulated device memory. */
    public Optional<ByteBuffer> view()
    {
        return view.map(ByteBuffer::duplicate);
    }

    @Override
    public String toString()
    {
        return description;
    }
}
