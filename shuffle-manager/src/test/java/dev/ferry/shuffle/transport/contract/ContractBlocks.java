package dev.ferry.shuffle.transport.contract;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import dev.ferry.shuffle.format.BlockChecksums;
import dev.ferry.shuffle.format.BlockHeader;
import dev.ferry.shuffle.format.ChecksumAlgorithm;
import dev.ferry.shuffle.format.CorruptBlockException;
import dev.ferry.shuffle.transport.ShuffleBlockRef;

/**
 * The blocks every contract endpoint serves: random bytes of several sizes (empty, one byte, less
 * than one chunk, many chunks of every route's chunking: TCP's 64 KiB body chunks, RDMA READ chunks,
 * shared-memory and bounce buffers) and one real Ferry block (header and CRC32C checksum), the
 * kind a reader verifies before decoding. The same seed gives the same blocks in every process.
 */
public final class ContractBlocks
{
    public static final int SHUFFLE = 11;
    public static final ShuffleBlockRef EMPTY = new ShuffleBlockRef(SHUFFLE, 100, 0);
    public static final ShuffleBlockRef ONE_BYTE = new ShuffleBlockRef(SHUFFLE, 101, 1);
    public static final ShuffleBlockRef SMALL = new ShuffleBlockRef(SHUFFLE, 102, 2);
    public static final ShuffleBlockRef MULTI_CHUNK = new ShuffleBlockRef(SHUFFLE, 103, 3);
    /** A Ferry-format block with a checksum (the one the fault tests spoil). */
    public static final ShuffleBlockRef CHECKED = new ShuffleBlockRef(SHUFFLE, 104, 4);
    /** No peer has it. */
    public static final ShuffleBlockRef MISSING = new ShuffleBlockRef(SHUFFLE, 999, 9);

    public static final int MULTI_CHUNK_BYTES = 3 * 1024 * 1024 + 4097;
    public static final int CHECKED_PAYLOAD_BYTES = 600_000;

    private ContractBlocks() {}

    /** Every block, in a fixed order, with its bytes; {@code withEmpty} false leaves out the empty block (device stores hold no empty buffers). */
    public static Map<ShuffleBlockRef, byte[]> all(boolean withEmpty)
    {
        Map<ShuffleBlockRef, byte[]> blocks = new LinkedHashMap<>();
        if (withEmpty) {
            blocks.put(EMPTY, new byte[0]);
        }
        blocks.put(ONE_BYTE, random(1, 1));
        blocks.put(SMALL, random(2, 70_001));
        blocks.put(MULTI_CHUNK, random(3, MULTI_CHUNK_BYTES));
        blocks.put(CHECKED, checkedBlock(4, CHECKED_PAYLOAD_BYTES));
        return blocks;
    }

    public static List<ShuffleBlockRef> refs(boolean withEmpty)
    {
        return new ArrayList<>(all(withEmpty).keySet());
    }

    public static byte[] random(long seed, int length)
    {
        byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    /** A Ferry block: the 32-byte header with a CRC32C over the payload and counts, then the payload. */
    public static byte[] checkedBlock(long seed, int payloadLength)
    {
        byte[] payload = random(seed, payloadLength);
        long checksum = BlockChecksums.compute(ChecksumAlgorithm.CRC32C, ByteBuffer.wrap(payload), 1000, 1);
        ByteBuffer block = ByteBuffer.allocate(BlockHeader.LENGTH + payloadLength).order(ByteOrder.LITTLE_ENDIAN);
        new BlockHeader(ChecksumAlgorithm.CRC32C, checksum, 1000, 1, payloadLength).writeTo(block);
        block.position(BlockHeader.LENGTH);
        block.put(payload);
        return block.array();
    }

    /** The check a Ferry reader makes before decoding (header sanity and checksum); throws on corruption. */
    public static void verify(byte[] block)
            throws CorruptBlockException
    {
        ByteBuffer buffer = ByteBuffer.wrap(block);
        BlockHeader header = BlockHeader.readFrom(buffer, block.length);
        long actual = BlockChecksums.compute(header.checksumAlgorithm(), ByteBuffer.wrap(block, BlockHeader.LENGTH, header.payloadLength()).slice(), header.rows(),
                header.batches());
        if (actual != header.checksum()) {
            throw new CorruptBlockException("checksum " + Long.toHexString(actual) + " is not the header's " + Long.toHexString(header.checksum()));
        }
    }
}
