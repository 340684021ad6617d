package dev.ferry.device.host;

import dev.ferry.device.cufile.ReadPathVerdict;
import dev.ferry.device.memory.NativeMemory;
import dev.ferry.device.spi.FileReadEngine;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static java.lang.Math.toIntExact;
import static java.util.Objects.requireNonNull;

/** Reads through the page cache with an ordinary descriptor, into ByteBuffer-backed memory. */
public final class PosixFileEngine
        implements FileReadEngine
{
    private final FileChannel channel;
    private final ReadPathVerdict verdict;

    private PosixFileEngine(FileChannel channel, ReadPathVerdict verdict)
    {
        this.channel = requireNonNull(channel, "channel is null");
        this.verdict = requireNonNull(verdict, "verdict is null");
    }

    public static PosixFileEngine open(Path path, ReadPathVerdict verdict)
            throws IOException
    {
        return new PosixFileEngine(FileChannel.open(path, StandardOpenOption.READ), verdict);
    }

    @Override
    public ReadPathVerdict verdict()
    {
        return verdict;
    }

    @Override
    public boolean requiresAlignment()
    {
        return false;
    }

    @Override
    public int alignment()
    {
        return 1;
    }

    @Override
    public boolean isAligned(NativeMemory memory, long offset)
    {
        return true;
    }

    @Override
    public long size()
            throws IOException
    {
        return channel.size();
    }

    @Override
    public long read(long fileOffset, long length, NativeMemory target, long targetOffset)
            throws IOException
    {
        ByteBuffer window = ByteBufferMemory.of(target).buffer().slice(toIntExact(targetOffset), toIntExact(length));
        int count = channel.read(window, fileOffset);
        return Math.max(count, 0);
    }

    @Override
    public void close()
            throws IOException
    {
        channel.close();
    }
}
