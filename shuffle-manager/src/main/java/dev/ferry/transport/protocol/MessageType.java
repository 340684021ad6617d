package dev.ferry.transport.protocol;

/** The byte id of each message on the wire; ids are part of the protocol and never reused. */
public enum MessageType
{
    BLOCK_LOCATIONS_REQUEST(1),
    BLOCK_LOCATIONS_RESPONSE(2),
    ERROR_RESPONSE(3),
    AUTH_CLIENT_HELLO(10),
    AUTH_SERVER_CHALLENGE(11),
    AUTH_CLIENT_PROOF(12);

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
        throw new IllegalArgumentException("Unknown message type id " + id);
    }
}
