package dev.ferry.device.host;

import dev.ferry.device.cufile.ReadPathVerdict;
import dev.ferry.device.memory.NativeMemory;
import dev.ferry.device.spi.ChannelReadEngine;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Reads through the page cache with an ordinary descriptor, into ByteBuffer-backed memory. */
public final class PosixFileEngine
        extends ChannelReadEngine
{
    private PosixFileEngine(FileChannel channel, ReadPathVerdict verdict)
    {
        super(channel, verdict);
    }

    public static PosixFileEngine open(Path path, ReadPathVerdict verdict)
            throws IOException
    {
        return new PosixFileEngine(FileChannel.open(path, StandardOpenOption.READ), verdict);
    }

    @Override
    public long read(long fileOffset, long length, NativeMemory target, long targetOffset)
            throws IOException
    {
        return readInto(ByteBufferMemory.of(target).window(targetOffset, length), fileOffset);
    }
}
