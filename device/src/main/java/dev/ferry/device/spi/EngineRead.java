package dev.ferry.device.spi;

import dev.ferry.device.cufile.FileRange;
import dev.ferry.device.memory.NativeMemory;

/** One checked, aligned range of a batch read handed to a {@link FileReadEngine}. */
public final class EngineRead
        extends FileRange<NativeMemory>
{
    public EngineRead(long fileOffset, long length, NativeMemory target, long targetOffset)
    {
        super(fileOffset, length, target, targetOffset);
    }
}
