package dev.ferry.device.memory;

import java.util.OptionalInt;

import static java.util.Objects.requireNonNull;

/**
 * One physical allocation made by a backend: device memory, pinned host memory, or a mapping
 * of another process's exported memory. A {@link BufferLedger} owns it and calls {@link #free()}
 * exactly once, when the last buffer handle over it is closed.
 *
 * <p>Backends subclass this with whatever they need to address the bytes (a pointer, an arena
 * offset, a ByteBuffer); only the backend that made a memory ever looks inside it.
 */
public abstract class NativeMemory
{
    private final MemoryLocation location;
    private final long size;

    protected NativeMemory(MemoryLocation location, long size)
    {
        this.location = requireNonNull(location, "location is null");
        if (size <= 0) {
            throw new IllegalArgumentException("size must be positive: " + size);
        }
        this.size = size;
    }

    public final MemoryLocation location()
    {
        return location;
    }

    public final long size()
    {
        return size;
    }

    /**
     * For a mapping of another process's exported memory: the device of this process whose
     * context imported it (on CUDA the mapping is valid in that context only, so its copies run on
     * that device's streams). Empty for memory this process allocated.
     */
    public OptionalInt importingDevice()
    {
        return OptionalInt.empty();
    }

    /** A short description for error messages and leak reports, e.g. "arena 0 [4096, +8192)". */
    public abstract String describe();

    /** Returns the memory to its backend; called once, by the ledger. */
    protected abstract void free();

    /** Frees memory that never reached a ledger because registering it failed. */
    public static void freeUnowned(NativeMemory memory)
    {
        memory.free();
    }

    final void freeFromLedger()
    {
        free();
    }
}
