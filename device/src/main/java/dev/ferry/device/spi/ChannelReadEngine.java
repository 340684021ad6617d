package dev.ferry.device.spi;

import dev.ferry.device.cufile.ReadPathVerdict;
import dev.ferry.device.memory.NativeMemory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

import static java.util.Objects.requireNonNull;

/**
 * What every backend's {@link FileReadEngine} shares: the open descriptor (size, host reads,
 * close), the verdict decided at open, and the alignment reads need (1: none). A subclass moves
 * the bytes into its memory; one that requires alignment also checks addresses
 * ({@link #isAligned}). Names no backend class, so host and simulated engines extend it as the
 * CUDA ones do without touching JavaCPP.
 */
public abstract class ChannelReadEngine
        implements FileReadEngine
{
    private final FileChannel channel;
    private final ReadPathVerdict verdict;
    private final int alignment;

    /** An engine that reads any range into any address. */
    protected ChannelReadEngine(FileChannel channel, ReadPathVerdict verdict)
    {
        this(channel, verdict, 1);
    }

    /** An engine whose file offsets, lengths and target addresses must be multiples of {@code alignment} (1: none). */
    protected ChannelReadEngine(FileChannel channel, ReadPathVerdict verdict, int alignment)
    {
        this.channel = requireNonNull(channel, "channel is null");
        this.verdict = requireNonNull(verdict, "verdict is null");
        if (alignment < 1) {
            throw new IllegalArgumentException("alignment must be positive: " + alignment);
        }
        this.alignment = alignment;
    }

    @Override
    public final ReadPathVerdict verdict()
    {
        return verdict;
    }

    @Override
    public final boolean requiresAlignment()
    {
        return alignment > 1;
    }

    @Override
    public final int alignment()
    {
        return alignment;
    }

    /**
     * Any address suits an engine that needs no alignment. An engine that does overrides this to
     * check the address; until it does, every address is reported misaligned, which costs a
     * bounce buffer, never a refused direct read.
     */
    @Override
    public boolean isAligned(NativeMemory memory, long offset)
    {
        return !requiresAlignment();
    }

    @Override
    public final long size()
            throws IOException
    {
        return channel.size();
    }

    /** Reads up to {@code window.remaining()} bytes at {@code fileOffset} into host-addressable {@code window}; 0 past end of file. */
    protected final long readInto(ByteBuffer window, long fileOffset)
            throws IOException
    {
        return Math.max(0, channel.read(window, fileOffset));
    }

    /** Closes the descriptor; a subclass that holds more releases it and calls this. */
    @Override
    public void close()
            throws IOException
    {
        channel.close();
    }
}
