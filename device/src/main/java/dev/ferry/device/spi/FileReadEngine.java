package dev.ferry.device.spi;

import dev.ferry.device.cufile.ReadPathVerdict;
import dev.ferry.device.memory.NativeMemory;

import java.io.IOException;
import java.util.List;

/**
 * How one backend reads one open file into its memory. {@code DeviceFile} does the checks,
 * the aligned-superset-and-trim for direct I/O, and short-read completion; an engine only moves
 * bytes and says which path it takes.
 */
public interface FileReadEngine
        extends AutoCloseable
{
    /** The path this file's reads take and why (decided once per file, at open). */
    ReadPathVerdict verdict();

    /** Whether {@link #read} needs file offset, length and target address aligned to {@link #alignment()}. */
    boolean requiresAlignment();

    int alignment();

    /** Whether {@code memory} at {@code offset} has an address aligned to {@link #alignment()}. */
    boolean isAligned(NativeMemory memory, long offset);

    /** The file's current size, through the open descriptor. */
    long size()
            throws IOException;

    /**
     * Reads up to {@code length} bytes at {@code fileOffset} into {@code target} at
     * {@code targetOffset}. Returns the bytes read: fewer at end of file, 0 past it.
     */
    long read(long fileOffset, long length, NativeMemory target, long targetOffset)
            throws IOException;

    /**
     * Reads several aligned ranges; returns bytes read per request. The default reads one by one;
     * the CUDA engine submits them as one cuFile batch.
     */
    default long[] readBatch(List<EngineRead> reads)
            throws IOException
    {
        long[] results = new long[reads.size()];
        for (int i = 0; i < reads.size(); i++) {
            EngineRead read = reads.get(i);
            results[i] = read(read.fileOffset(), read.length(), read.target(), read.targetOffset());
        }
        return results;
    }

    @Override
    void close()
            throws IOException;
}
