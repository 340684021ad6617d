package dev.ferry.shuffle.transport.wire;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Set;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

import static java.util.Objects.requireNonNull;

/**
 * Reads frames. A frame's length is checked against its type's own maximum
 * ({@link MessageType#maxFrameBytes}) and its type against the types this reader accepts (its
 * phase: a server's handshake, a server's requests, a client's answers) before anything is
 * allocated; every length inside a frame is checked against the frame. A violation is an
 * {@link IOException}, since a stream that lies about lengths cannot be trusted for anything that
 * follows. Not thread-safe.
 */
public final class FrameReader
{
    private static final int COPY_CHUNK = 64 * 1024;

    private final DataInputStream in;
    private final long maxBlockFrameBytes;
    private final Set<MessageType> accepted;
    private final byte[] chunk = new byte[COPY_CHUNK];

    /**
     * {@code accepted}: the types this reader takes (e.g. {@link MessageType#SERVER_HANDSHAKE});
     * {@code maxBlockFrameBytes}: the longest {@link BlockResponse} frame, body included (a client's fetch limit).
     */
    public FrameReader(InputStream in, long maxBlockFrameBytes, Set<MessageType> accepted)
    {
        this.in = new DataInputStream(requireNonNull(in, "in is null"));
        if (maxBlockFrameBytes < 1 + BlockResponse.HEADER_BYTES) {
            throw new IllegalArgumentException("maxFrameBytes too small: " + maxBlockFrameBytes);
        }
        this.maxBlockFrameBytes = Math.min(maxBlockFrameBytes, Integer.MAX_VALUE);
        this.accepted = Set.copyOf(requireNonNull(accepted, "accepted is null"));
    }

    /** The next message, or null at a clean end of stream (between frames). A block's body is left for {@link #readBody}. */
    public Message read()
            throws IOException
    {
        int frameLength;
        try {
            frameLength = in.readInt();
        }
        catch (EOFException e) {
            return null;
        }
        if (frameLength < 1) {
            throw new IOException("Frame length " + frameLength + " is not positive");
        }
        byte id = in.readByte();
        MessageType type = MessageType.fromIdOrNull(id);
        if (type == null) {
            throw new IOException(MessageType.unknownIdReason(id) + " (frame of " + frameLength + " bytes)");
        }
        if (!accepted.contains(type)) {
            throw new IOException("Unexpected " + type + " frame here (expected one of " + accepted + ")");
        }
        long limit = type.maxFrameBytes(maxBlockFrameBytes);
        if (frameLength > limit) {
            throw new IOException(type + " frame length " + frameLength + " exceeds its limit of " + limit + " bytes");
        }
        int headerLength = type == MessageType.BLOCK_RESPONSE ? BlockResponse.HEADER_BYTES : frameLength - 1;
        if (headerLength > frameLength - 1) {
            throw new IOException(type + " frame of " + frameLength + " bytes is shorter than its header");
        }
        byte[] header = new byte[headerLength];
        try {
            in.readFully(header);
        }
        catch (EOFException e) {
            EOFException named = new EOFException("the stream ended inside a " + type + " frame of " + frameLength + " bytes, before byte offset " + (1 + headerLength));
            named.initCause(e);
            throw named;
        }
        try {
            ByteBuffer buffer = ByteBuffer.wrap(header);
            switch (type) {
                case FETCH_REQUEST:
                    return FetchRequest.decode(buffer);
                case FETCH_FAILURE:
                    return FetchFailure.decode(buffer);
                case BLOCK_LOCATION:
                    return whole(type, BlockLocation.decode(buffer), buffer);
                case AUTH_CLIENT_HELLO:
                    return whole(type, AuthClientHello.decode(buffer), buffer);
                case AUTH_SERVER_CHALLENGE:
                    return whole(type, AuthServerChallenge.decode(buffer), buffer);
                case AUTH_CLIENT_PROOF:
                    return whole(type, AuthClientProof.decode(buffer), buffer);
                case AUTH_SERVER_PROOF:
                    return whole(type, AuthServerProof.decode(buffer), buffer);
                case AUTH_FAILURE:
                    return whole(type, AuthFailure.decode(buffer), buffer);
                case FETCH_DONE:
                    return whole(type, new FetchDone(), buffer);
                case RDMA_ADMISSION_REQUEST:
                    return whole(type, RdmaAdmissionRequest.decode(buffer), buffer);
                case RDMA_ADMISSION:
                    return whole(type, RdmaAdmission.decode(buffer), buffer);
                case BLOCK_RESPONSE: {
                    BlockResponse response = BlockResponse.decode(buffer);
                    if (response.bodyLength() != frameLength - 1L - headerLength) {
                        throw new IOException("Block response body of " + response.bodyLength() + " bytes does not fill its " + frameLength + "-byte frame");
                    }
                    return response;
                }
            }
        }
        catch (IllegalArgumentException | java.nio.BufferUnderflowException e) {
            throw new IOException("Malformed " + type + " frame: " + e.getMessage(), e);
        }
        throw new IllegalStateException("Unhandled message type " + type);
    }

    /** The auth messages' fields are length-prefixed, not sized by the frame: bytes left over mean a foreign or corrupt peer. */
    private static Message whole(MessageType type, Message message, ByteBuffer header)
    {
        if (header.hasRemaining()) {
            throw new IllegalArgumentException(header.remaining() + " trailing bytes after " + type);
        }
        return message;
    }

    /** Reads the body announced by {@code response} into a new buffer owned by the caller. */
    public ArrowBuf readBody(BlockResponse response, BufferAllocator allocator)
            throws IOException
    {
        long length = response.bodyLength();
        ArrowBuf body = allocator.buffer(Math.max(length, 1));
        long offset = 0;
        try {
            while (offset < length) {
                int part = (int) Math.min(chunk.length, length - offset);
                in.readFully(chunk, 0, part);
                body.setBytes(offset, chunk, 0, part);
                offset += part;
            }
            return body;
        }
        catch (EOFException e) {
            body.close();
            // readFully may have taken part of the chunk; the block is good up to about this offset.
            EOFException named = new EOFException("the stream ended inside the block's " + length + " bytes, after byte offset " + offset);
            named.initCause(e);
            throw named;
        }
        catch (IOException | RuntimeException e) {
            body.close();
            throw e;
        }
    }
}
