package dev.ferry.shuffle.transport.tcp.protocol;

/** The byte that follows a frame's length and says which message it is; ids are part of the protocol and never reused. */
public enum MessageType
{
    FETCH_REQUEST(1),
    BLOCK_RESPONSE(2),
    FETCH_FAILURE(3),
    SHM_FETCH_REQUEST(4),
    SHM_BLOCK_RESPONSE(5),
    RDMA_FETCH_REQUEST(6),
    RDMA_BLOCK_RESPONSE(7),
    IPC_FETCH_REQUEST(8),
    IPC_BLOCK_RESPONSE(9),
    GPU_RDMA_FETCH_REQUEST(10),
    GPU_RDMA_BLOCK_RESPONSE(11),
    // The authentication handshake (spark.authenticate) that opens a connection before any of the above.
    AUTH_CLIENT_HELLO(12),
    AUTH_SERVER_CHALLENGE(13),
    AUTH_CLIENT_PROOF(14),
    AUTH_FAILURE(15),
    // The reader is done with its last request's blocks (no answer).
    FETCH_DONE(16);

    private final byte id;

    MessageType(int id)
    {
        this.id = (byte) id;
    }

    public byte id()
    {
        return id;
    }

    public static MessageType fromId(byte id)
    {
        for (MessageType type : values()) {
            if (type.id == id) {
                return type;
            }
        }
        throw new IllegalArgumentException("Unknown message type " + id);
    }
}
