package dev.ferry.shuffle.format;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static java.util.Objects.requireNonNull;

/**
 * The fixed 32-byte header in front of every shuffle block (one reduce partition of one map task):
 * magic, version, checksum algorithm, payload checksum, row and batch counts, payload length. The
 * payload that follows is a sequence of Arrow IPC record-batch messages without any schema
 * message: both sides know the schema from the plan, so it is never repeated.
 */
public final class BlockHeader
{
    public static final int LENGTH = 32;
    static final int MAGIC = 0x46525931; // "FRY1"
    static final int VERSION = 1;

    private final ChecksumAlgorithm checksumAlgorithm;
    private final long checksum;
    private final long rows;
    private final int batches;
    private final int payloadLength;

    public BlockHeader(ChecksumAlgorithm checksumAlgorithm, long checksum, long rows, int batches, int payloadLength)
    {
        this.checksumAlgorithm = requireNonNull(checksumAlgorithm, "checksumAlgorithm is null");
        this.checksum = checksum;
        this.rows = rows;
        this.batches = batches;
        this.payloadLength = payloadLength;
    }

    public ChecksumAlgorithm checksumAlgorithm()
    {
        return checksumAlgorithm;
    }

    public long checksum()
    {
        return checksum;
    }

    public long rows()
    {
        return rows;
    }

    public int batches()
    {
        return batches;
    }

    public int payloadLength()
    {
        return payloadLength;
    }

    public void writeTo(ByteBuffer target)
    {
        ByteBuffer out = target.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        out.putInt(MAGIC);
        out.put((byte) VERSION);
        out.put((byte) checksumAlgorithm.id());
        out.putShort((short) 0);
        out.putLong(checksum);
        out.putLong(rows);
        out.putInt(batches);
        out.putInt(payloadLength);
    }

    /** Reads and sanity-checks a header; any inconsistency is corruption, never trusted. */
    public static BlockHeader readFrom(ByteBuffer source, long blockLength)
            throws CorruptBlockException
    {
        if (blockLength < LENGTH) {
            throw new CorruptBlockException("Block of " + blockLength + " bytes is shorter than its " + LENGTH + "-byte header");
        }
        ByteBuffer in = source.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        int magic = in.getInt();
        if (magic != MAGIC) {
            throw new CorruptBlockException("Block starts with 0x" + Integer.toHexString(magic) + ", not Ferry's magic number");
        }
        int version = in.get();
        if (version != VERSION) {
            throw new CorruptBlockException("Block format version " + version + " is not " + VERSION);
        }
        ChecksumAlgorithm algorithm;
        try {
            algorithm = ChecksumAlgorithm.fromId(in.get());
        }
        catch (IllegalArgumentException e) {
            throw new CorruptBlockException(e.getMessage(), e);
        }
        short reserved = in.getShort();
        if (reserved != 0) {
            throw new CorruptBlockException("Block header's reserved field is " + reserved + ", not 0");
        }
        long checksum = in.getLong();
        long rows = in.getLong();
        int batches = in.getInt();
        int payloadLength = in.getInt();
        if (rows < 0 || batches < 0 || payloadLength < 0 || LENGTH + (long) payloadLength != blockLength) {
            throw new CorruptBlockException("Block header says " + rows + " rows in " + batches + " batches over " + payloadLength
                    + " payload bytes, but the block has " + blockLength + " bytes");
        }
        return new BlockHeader(algorithm, checksum, rows, batches, payloadLength);
    }
}
