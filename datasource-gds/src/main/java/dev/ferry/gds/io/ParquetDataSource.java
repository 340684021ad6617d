package dev.ferry.gds.io;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

/**
 * The one I/O seam under the Parquet reader: everything the reader needs from a file. Each
 * {@link IoRoute} is an implementation: HOST reads with positional file reads into host memory; GDS
 * (cuFile into device buffers) and BOUNCE (pinned host buffers copied to the device) plug in here
 * too, and an in-memory source serves tests. Read planning, timing and counting live once in
 * {@link AbstractParquetDataSource}.
 *
 * <p>Buffers returned are views the caller must not modify ({@link #planRead}'s are not marked
 * read-only, so codecs can read their arrays without a copy); they stay valid after {@link #close()}
 * (they are heap memory on every route).
 */
public interface ParquetDataSource
        extends Closeable
{
    /** The file, as users name it in errors. */
    String id();

    IoRoute route();

    /** The file's length in bytes. */
    long size();

    /** The last {@code min(length, size())} bytes of the file. */
    ByteBuffer readTail(int length)
            throws IOException;

    /** Exactly {@code length} bytes at {@code position}; fails naming the file when they are not there. */
    ByteBuffer readFully(long position, int length)
            throws IOException;

    /** {@link #readFully}, counted as a read the caller did not plan (the decoder asked for bytes outside every planned range). */
    ByteBuffer readUnplanned(long position, int length)
            throws IOException;

    /**
     * Reads all {@code ranges} together: nearby ranges are coalesced into one request, large ones
     * are split and read in parallel. Returns one buffer per key.
     */
    <K> Map<K, ByteBuffer> planRead(Map<K, DiskRange> ranges)
            throws IOException;

    /** The requests {@link #planRead} would issue for {@code ranges}, in file order. */
    List<DiskRange> plan(List<DiskRange> ranges);

    ReadCounters counters();

    @Override
    void close()
            throws IOException;
}
