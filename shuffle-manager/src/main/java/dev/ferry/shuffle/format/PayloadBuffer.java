package dev.ferry.shuffle.format;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.Checksum;

/**
 * The serialized batches of one block, kept on the heap until the map task commits, except the
 * parts the task spilled to its spill file when Spark asked it for memory back: those are
 * recorded as (offset, length) segments of that file and read back, in order, ahead of the bytes
 * still in memory when the block is written.
 */
final class PayloadBuffer
        extends ByteArrayOutputStream
{
    private static final byte[] EMPTY = new byte[0];

    private final List<long[]> spilledSegments = new ArrayList<>();
    private long spilledBytes;
    private int batches;
    private long rows;
    private long uncompressedBytes;

    PayloadBuffer(int initialSize)
    {
        super(initialSize);
    }

    void addBatch(long batchRows, long batchUncompressedBytes)
    {
        batches++;
        rows += batchRows;
        uncompressedBytes += batchUncompressedBytes;
    }

    int batches()
    {
        return batches;
    }

    long rows()
    {
        return rows;
    }

    /** The Arrow buffers' bytes of every batch before compression. */
    long uncompressedBytes()
    {
        return uncompressedBytes;
    }

    /** The payload's length: the bytes spilled and those in memory. */
    long length()
    {
        return spilledBytes + count;
    }

    /** Heap this payload holds now (its array, not only the bytes written to it). */
    long heapBytes()
    {
        return buf.length;
    }

    /**
     * Appends the bytes in memory to {@code file} at {@code position} and lets go of the array
     * holding them; returns the bytes written.
     */
    long spillTo(FileChannel file, long position)
            throws IOException
    {
        int length = count;
        if (length > 0) {
            ByteBuffer bytes = ByteBuffer.wrap(buf, 0, length);
            long at = position;
            while (bytes.hasRemaining()) {
                at += file.write(bytes, at);
            }
            spilledSegments.add(new long[] {position, length});
            spilledBytes += length;
        }
        buf = EMPTY;
        count = 0;
        return length;
    }

    /**
     * Writes the whole payload into {@code target} at {@code position} (the spilled segments from
     * {@code spill} through {@code chunk}, then the bytes in memory), feeding {@code checksum} (may
     * be null) on the way.
     */
    void transferTo(FileChannel target, long position, FileChannel spill, Checksum checksum, ByteBuffer chunk)
            throws IOException
    {
        long at = position;
        for (long[] segment : spilledSegments) {
            long read = 0;
            while (read < segment[1]) {
                chunk.clear();
                chunk.limit((int) Math.min(chunk.capacity(), segment[1] - read));
                while (chunk.hasRemaining()) {
                    if (spill.read(chunk, segment[0] + read + chunk.position()) < 0) {
                        throw new IOException("Spill file ends before the segment at " + segment[0] + " of " + segment[1] + " bytes");
                    }
                }
                chunk.flip();
                read += chunk.remaining();
                at = write(target, at, chunk, checksum);
            }
        }
        write(target, at, ByteBuffer.wrap(buf, 0, count), checksum);
    }

    private static long write(FileChannel target, long position, ByteBuffer bytes, Checksum checksum)
            throws IOException
    {
        if (checksum != null) {
            checksum.update(bytes.duplicate());
        }
        long at = position;
        while (bytes.hasRemaining()) {
            at += target.write(bytes, at);
        }
        return at;
    }

    /** Puts the whole payload at {@code target}'s position: the spilled segments from {@code file}, then the bytes in memory. */
    void copyTo(ByteBuffer target, FileChannel file)
            throws IOException
    {
        for (long[] segment : spilledSegments) {
            ByteBuffer part = target.duplicate();
            part.limit(part.position() + Math.toIntExact(segment[1]));
            long at = segment[0];
            while (part.hasRemaining()) {
                int read = file.read(part, at);
                if (read < 0) {
                    throw new IOException("Spill file ends before the segment at " + segment[0] + " of " + segment[1] + " bytes");
                }
                at += read;
            }
            target.position(part.position());
        }
        target.put(buf, 0, count);
    }
}
