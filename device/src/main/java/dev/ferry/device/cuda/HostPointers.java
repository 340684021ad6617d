package dev.ferry.device.cuda;

import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;

import java.nio.ByteBuffer;

import static java.lang.Math.toIntExact;

/**
 * Address arithmetic between Java direct buffers and JavaCPP pointers, kept apart from CUDA so it
 * can be tested on machines without a GPU (it needs only JavaCPP's own natives).
 */
final class HostPointers
{
    private HostPointers() {}

    /** A pointer at {@code direct}'s current position. */
    static Pointer at(ByteBuffer direct)
    {
        if (!direct.isDirect()) {
            throw new IllegalArgumentException("Only direct buffers have a stable address");
        }
        // Pointer(Buffer) keeps the position separately; take the base address and add it ourselves.
        return new AddressPointer(new Pointer(direct).address() + direct.position());
    }

    /** A ByteBuffer over {@code length} host bytes at {@code address} (page-locked memory from cudaHostAlloc). */
    static ByteBuffer view(Pointer address, long length)
    {
        return new BytePointer(address).capacity(length).asByteBuffer().slice(0, toIntExact(length));
    }
}
