package dev.ferry.gds.io;

import org.apache.parquet.bytes.ByteBufferAllocator;
import org.apache.parquet.io.ParquetFileRange;
import org.apache.parquet.io.SeekableInputStream;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import static java.util.Objects.requireNonNull;

/** A positioned stream over the seam: served from prefetched ranges, else by a counted unplanned read. */
final class SeamInputStream
        extends SeekableInputStream
{
    // An unplanned read of unknown length (a single byte, a partial read) fetches this much, so
    // parquet-mr's byte-by-byte Thrift parsing does not become one request per byte.
    private static final int READ_AHEAD = 64 * 1024;

    private final ParquetDataSource source;
    private final PrefetchedRanges prefetched;
    private long position;

    SeamInputStream(ParquetDataSource source, PrefetchedRanges prefetched)
    {
        this.source = requireNonNull(source, "source is null");
        this.prefetched = requireNonNull(prefetched, "prefetched is null");
    }

    @Override
    public long getPos()
    {
        return position;
    }

    @Override
    public void seek(long newPosition)
            throws IOException
    {
        if (newPosition < 0 || newPosition > source.size()) {
            throw new EOFException("Seek to " + newPosition + " outside " + source.id() + " (" + source.size() + " bytes)");
        }
        position = newPosition;
    }

    @Override
    public int read()
            throws IOException
    {
        if (position >= source.size()) {
            return -1;
        }
        ByteBuffer bytes = bytesAt(1, true);
        position++;
        return bytes.get() & 0xFF;
    }

    @Override
    public int read(byte[] target, int offset, int length)
            throws IOException
    {
        if (length == 0) {
            return 0;
        }
        long remaining = source.size() - position;
        if (remaining <= 0) {
            return -1;
        }
        int count = (int) Math.min(length, remaining);
        bytesAt(count, true).get(target, offset, count);
        position += count;
        return count;
    }

    @Override
    public void readFully(byte[] target)
            throws IOException
    {
        readFully(target, 0, target.length);
    }

    @Override
    public void readFully(byte[] target, int offset, int length)
            throws IOException
    {
        checkAvailable(length);
        bytesAt(length, false).get(target, offset, length);
        position += length;
    }

    @Override
    public int read(ByteBuffer target)
            throws IOException
    {
        long remaining = source.size() - position;
        if (remaining <= 0) {
            return target.hasRemaining() ? -1 : 0;
        }
        int count = (int) Math.min(target.remaining(), remaining);
        target.put(bytesAt(count, true));
        position += count;
        return count;
    }

    @Override
    public void readFully(ByteBuffer target)
            throws IOException
    {
        int length = target.remaining();
        checkAvailable(length);
        target.put(bytesAt(length, false));
        position += length;
    }

    /**
     * parquet-mr's vectored read of a row group's chunk runs: each range is answered with a view of
     * the bytes already fetched (or one counted unplanned read), so parquet-mr slices its pages from
     * the seam's buffers instead of copying every chunk into buffers of its own.
     */
    @Override
    public boolean readVectoredAvailable(ByteBufferAllocator allocator)
    {
        return true;
    }

    @Override
    public void readVectored(List<ParquetFileRange> ranges, ByteBufferAllocator allocator)
            throws IOException
    {
        for (ParquetFileRange range : ranges) {
            long offset = range.getOffset();
            int length = range.getLength();
            if (offset < 0 || length < 0 || offset + length > source.size()) {
                throw new EOFException("Range of " + length + " bytes at offset " + offset + " is outside " + source.id() + " (" + source.size() + " bytes)");
            }
            range.setDataReadFuture(CompletableFuture.completedFuture(bytesAt(offset, length, false)));
        }
    }

    private void checkAvailable(int length)
            throws EOFException
    {
        if (length < 0 || position + length > source.size()) {
            throw new EOFException("Reached the end of " + source.id() + ": " + length + " bytes wanted at offset " + position
                    + ", file has " + source.size());
        }
    }

    private ByteBuffer bytesAt(int length, boolean mayReadAhead)
            throws IOException
    {
        return bytesAt(position, length, mayReadAhead);
    }

    private ByteBuffer bytesAt(long position, int length, boolean mayReadAhead)
            throws IOException
    {
        Optional<ByteBuffer> cached = prefetched.find(position, length);
        if (cached.isPresent()) {
            return cached.get();
        }
        int fetch = mayReadAhead ? (int) Math.min(Math.max(length, READ_AHEAD), source.size() - position) : length;
        ByteBuffer bytes = source.readUnplanned(position, fetch);
        if (fetch > length) {
            prefetched.add(new DiskRange(position, fetch), bytes.duplicate());
        }
        ByteBuffer view = bytes.duplicate();
        view.limit(view.position() + length);
        return view;
    }
}
