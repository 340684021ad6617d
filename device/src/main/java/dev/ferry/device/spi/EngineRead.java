package dev.ferry.device.spi;

import dev.ferry.device.memory.NativeMemory;

import static java.util.Objects.requireNonNull;

/** One checked, aligned range of a batch read handed to a {@link FileReadEngine}. */
public final class EngineRead
{
    private final long fileOffset;
    private final long length;
    private final NativeMemory target;
    private final long targetOffset;

    public EngineRead(long fileOffset, long length, NativeMemory target, long targetOffset)
    {
        this.fileOffset = fileOffset;
        this.length = length;
        this.target = requireNonNull(target, "target is null");
        this.targetOffset = targetOffset;
    }

    public long fileOffset()
    {
        return fileOffset;
    }

    public long length()
    {
        return length;
    }

    public NativeMemory target()
    {
        return target;
    }

    public long targetOffset()
    {
        return targetOffset;
    }
}
