package dev.ferry.shuffle.format;

import java.nio.ByteBuffer;
import java.util.zip.Checksum;

/**
 * A block's checksum: over its payload (read in place, not copied) and the header's row and batch
 * counts, so a flipped bit anywhere in a block is caught before any of it is decoded.
 */
public final class BlockChecksums
{
    private BlockChecksums() {}

    public static long compute(ChecksumAlgorithm algorithm, ByteBuffer payload, long rows, int batches)
    {
        Checksum checksum = algorithm.newChecksum();
        if (checksum == null) {
            return 0;
        }
        checksum.update(payload.duplicate());
        return finish(checksum, rows, batches);
    }

    /** The value of a checksum the payload was fed to piece by piece ({@code null} for no checksum): the counts go in last. */
    static long finish(Checksum checksum, long rows, int batches)
    {
        if (checksum == null) {
            return 0;
        }
        ByteBuffer counts = ByteBuffer.allocate(Long.BYTES + Integer.BYTES);
        counts.putLong(rows).putInt(batches).flip();
        checksum.update(counts);
        return checksum.getValue();
    }
}
