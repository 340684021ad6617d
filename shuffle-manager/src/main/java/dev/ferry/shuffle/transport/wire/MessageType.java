package dev.ferry.shuffle.transport.wire;

import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The byte that follows a frame's length and says which message it is; ids are part of the protocol
 * and never reused. Each type has its own largest frame ({@link #maxFrameBytes}), checked against a
 * frame's length before a byte of it is allocated, and belongs to one {@link Phase}: a reader
 * accepts only the types of the phase it is in (a server before authentication: the client's
 * handshake frames, a few KiB each; after it: requests), so a stranger's first five bytes can never
 * make a server allocate more than a handshake frame.
 */
public enum MessageType
{
    // Ids 1 and 4-11 are retired (see RETIRED): never reuse them.
    BLOCK_RESPONSE(2, Phase.RESPONSE),
    FETCH_FAILURE(3, Phase.RESPONSE),
    // The authentication handshake (spark.authenticate) that opens a connection before any request.
    AUTH_CLIENT_HELLO(12, Phase.CLIENT_HANDSHAKE),
    AUTH_SERVER_CHALLENGE(13, Phase.SERVER_HANDSHAKE),
    AUTH_CLIENT_PROOF(14, Phase.CLIENT_HANDSHAKE),
    // Sent by either side: the handshake failed there (no detail that would help a guesser).
    AUTH_FAILURE(15, Phase.SERVER_HANDSHAKE),
    // The reader is done with its last request's blocks (no answer).
    FETCH_DONE(16, Phase.REQUEST),
    AUTH_SERVER_PROOF(17, Phase.SERVER_HANDSHAKE),
    // RDMA connection setup gated by the authenticated stream: a one-time token for one queue pair.
    RDMA_ADMISSION_REQUEST(18, Phase.REQUEST),
    RDMA_ADMISSION(19, Phase.RESPONSE),
    // One fetch request for every route, the route a byte in it; one answer per block.
    FETCH_REQUEST(20, Phase.REQUEST),
    // Where a block can be taken other than in the stream: shared memory, a CUDA IPC handle, remote slices.
    BLOCK_LOCATION(21, Phase.RESPONSE);

    /**
     * Ids of messages this protocol no longer has, by their old names: a frame with one is refused
     * naming it (the peer runs an older Ferry), and no new message may take the id.
     */
    public static final Map<Byte, String> RETIRED = retired(
            1, "FETCH_REQUEST (without a route)",
            4, "SHM_FETCH_REQUEST",
            5, "SHM_BLOCK_RESPONSE",
            6, "RDMA_FETCH_REQUEST",
            7, "RDMA_BLOCK_RESPONSE",
            8, "IPC_FETCH_REQUEST",
            9, "IPC_BLOCK_RESPONSE",
            10, "GPU_RDMA_FETCH_REQUEST",
            11, "GPU_RDMA_BLOCK_RESPONSE");

    /**
     * The layout of these messages. Bumped with the handshake's key label (auth's {@code AuthProofs})
     * when the layout changes, so an authenticated peer of another version fails the handshake rather
     * than misreading frames: 3 retired the per-route requests and responses for {@link #FETCH_REQUEST}
     * and {@link #BLOCK_LOCATION}.
     */
    public static final int WIRE_VERSION = 3;

    /** Largest handshake frame: nonces, an ephemeral public key and a MAC fit many times over. */
    public static final int HANDSHAKE_FRAME_BYTES = 4 * 1024;
    /** Largest request frame: a fetch request of about 700,000 blocks. */
    public static final int REQUEST_FRAME_BYTES = 8 * 1024 * 1024;
    /** Largest response frame other than a block's: a failure's reason (at most 64 KiB) or a block's location. */
    public static final int RESPONSE_FRAME_BYTES = 128 * 1024;

    /** Frames a server reads before its peer authenticated: the client's handshake, or its refusal. */
    public static final Set<MessageType> SERVER_HANDSHAKE = frozen(EnumSet.of(AUTH_CLIENT_HELLO, AUTH_CLIENT_PROOF, AUTH_FAILURE));
    /** Frames a client reads during the handshake. */
    public static final Set<MessageType> CLIENT_HANDSHAKE = frozen(EnumSet.of(AUTH_SERVER_CHALLENGE, AUTH_SERVER_PROOF, AUTH_FAILURE));
    /** Frames a server reads from an authenticated (or, with authentication off, any) peer. */
    public static final Set<MessageType> REQUESTS = frozen(of(Phase.REQUEST));
    /** Frames a client reads in answer to its requests. */
    public static final Set<MessageType> RESPONSES = frozen(of(Phase.RESPONSE));

    /** Who sends a type, and when. */
    public enum Phase
    {
        CLIENT_HANDSHAKE, SERVER_HANDSHAKE, REQUEST, RESPONSE
    }

    private final byte id;
    private final Phase phase;

    MessageType(int id, Phase phase)
    {
        this.id = (byte) id;
        this.phase = phase;
    }

    public byte id()
    {
        return id;
    }

    public Phase phase()
    {
        return phase;
    }

    /**
     * The longest frame of this type, type byte included; {@code maxBlockFrameBytes} bounds a
     * {@link #BLOCK_RESPONSE}, whose body is the block (the reader's own fetch limit).
     */
    public long maxFrameBytes(long maxBlockFrameBytes)
    {
        return switch (phase) {
            case CLIENT_HANDSHAKE, SERVER_HANDSHAKE -> HANDSHAKE_FRAME_BYTES;
            case REQUEST -> REQUEST_FRAME_BYTES;
            case RESPONSE -> this == BLOCK_RESPONSE ? maxBlockFrameBytes : RESPONSE_FRAME_BYTES;
        };
    }

    /** The type with this id, or null for a byte that names none (retired ids included: see {@link #RETIRED}). */
    public static MessageType fromIdOrNull(byte id)
    {
        for (MessageType type : values()) {
            if (type.id == id) {
                return type;
            }
        }
        return null;
    }

    public static MessageType fromId(byte id)
    {
        MessageType type = fromIdOrNull(id);
        if (type == null) {
            throw new IllegalArgumentException(unknownIdReason(id));
        }
        return type;
    }

    /** Why a frame with {@code id} is refused: a retired message's old name, or that the id names none. */
    public static String unknownIdReason(byte id)
    {
        String retired = RETIRED.get(id);
        if (retired != null) {
            return "Message type " + id + " (" + retired + ") was retired in wire version " + WIRE_VERSION + ": the peer runs an older Ferry";
        }
        return "Unknown message type " + id;
    }

    private static Map<Byte, String> retired(Object... idsAndNames)
    {
        Map<Byte, String> retired = new LinkedHashMap<>();
        for (int i = 0; i < idsAndNames.length; i += 2) {
            retired.put((byte) (int) (Integer) idsAndNames[i], (String) idsAndNames[i + 1]);
        }
        return Collections.unmodifiableMap(retired);
    }

    private static EnumSet<MessageType> of(Phase phase)
    {
        EnumSet<MessageType> types = EnumSet.noneOf(MessageType.class);
        for (MessageType type : values()) {
            if (type.phase == phase) {
                types.add(type);
            }
        }
        return types;
    }

    private static Set<MessageType> frozen(EnumSet<MessageType> types)
    {
        return Collections.unmodifiableSet(types);
    }
}
