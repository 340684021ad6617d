package dev.ferry.shuffle.format;

import java.io.IOException;

import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ReadChannel;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.MessageMetadataResult;
import org.apache.arrow.vector.ipc.message.MessageSerializer;

import static java.util.Objects.requireNonNull;

/**
 * Reads one block back into Arrow batches. The header and checksum are verified before any batch
 * is decoded, so corrupt bytes are rejected, never returned. Message bodies are slices of the
 * block buffer: uncompressed buffers reach the vectors without a copy. Owns the block buffer.
 */
public final class BlockDecoder
        implements AutoCloseable
{
    private final ArrowBuf block;
    private final BlockHeader header;
    private final ArrowBufChannel channel;
    private int batchesRead;
    private long rowsRead;

    /** Takes ownership of {@code block} (released by {@link #close}, also when this constructor throws). */
    public BlockDecoder(ArrowBuf block, long length)
            throws CorruptBlockException
    {
        this.block = requireNonNull(block, "block is null");
        boolean success = false;
        try {
            this.header = BlockHeader.readFrom(block.nioBuffer(0, (int) Math.min(length, BlockHeader.LENGTH)), length);
            if (header.checksumAlgorithm() != ChecksumAlgorithm.NONE) {
                long actual = BlockChecksums.compute(header.checksumAlgorithm(), block.nioBuffer(BlockHeader.LENGTH, header.payloadLength()), header.rows(), header.batches());
                if (actual != header.checksum()) {
                    throw new CorruptBlockException(header.checksumAlgorithm() + " checksum of the block is " + Long.toHexString(actual)
                            + " but the writer recorded " + Long.toHexString(header.checksum()));
                }
            }
            this.channel = new ArrowBufChannel(block, BlockHeader.LENGTH, length);
            success = true;
        }
        finally {
            if (!success) {
                block.close();
            }
        }
    }

    public BlockHeader header()
    {
        return header;
    }

    /** Loads the next batch into {@code root} (replacing its contents); false after the last one. */
    public boolean loadNext(VectorSchemaRoot root)
            throws CorruptBlockException
    {
        if (batchesRead == header.batches()) {
            // Without a checksum these are the last line of defence against a damaged header.
            if (rowsRead != header.rows() || channel.remaining() != 0) {
                throw new CorruptBlockException("Block header promised " + header.rows() + " rows, the batches held " + rowsRead + " with "
                        + channel.remaining() + " bytes left over");
            }
            return false;
        }
        try {
            ReadChannel in = new ReadChannel(channel);
            MessageMetadataResult message = MessageSerializer.readMessage(in);
            if (message == null || message.getMessage().headerType() != MessageHeader.RecordBatch) {
                throw new CorruptBlockException("Batch " + batchesRead + " of " + header.batches() + " is missing or not a record batch");
            }
            long bodyLength = message.getMessageBodyLength();
            if (bodyLength < 0 || bodyLength > channel.remaining()) {
                throw new CorruptBlockException("Batch body of " + bodyLength + " bytes overruns the block (" + channel.remaining() + " left)");
            }
            ArrowBuf body = block.slice(channel.position(), bodyLength);
            channel.skip(bodyLength);
            // deserializeRecordBatch releases the body once it is done (it expects a freshly read
            // buffer); the slice shares the block's reference count, so take that reference here.
            body.getReferenceManager().retain();
            try (ArrowRecordBatch batch = MessageSerializer.deserializeRecordBatch(message, body)) {
                new VectorLoader(root, BufferCodecs.READER).load(batch);
            }
            batchesRead++;
            rowsRead += root.getRowCount();
            return true;
        }
        catch (CorruptBlockException e) {
            throw e;
        }
        catch (OutOfMemoryException e) {
            // The task's Arrow limit, not the block's bytes: never reported as corruption (that would rerun the map stage).
            throw e;
        }
        catch (IOException | RuntimeException e) {
            throw new CorruptBlockException("Batch " + batchesRead + " of the block cannot be decoded: " + e.getMessage(), e);
        }
    }

    @Override
    public void close()
    {
        block.close();
    }
}
