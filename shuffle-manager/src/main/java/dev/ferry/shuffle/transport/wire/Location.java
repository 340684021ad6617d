package dev.ferry.shuffle.transport.wire;

import java.nio.ByteBuffer;

/**
 * Where a served block can be taken from other than the stream, as a {@link BlockLocation} carries
 * it: a kind byte, then the kind's fields, each decoded and checked on its own (no opaque handle
 * bytes). Values compare by value.
 */
public sealed interface Location
        permits ShmLocation, IpcLocation, RemoteSlices, RouteRefusal
{
    /** The kind byte that starts the location on the wire. */
    Kind kind();

    /** The bytes {@link #encode} writes after the kind byte. */
    int encodedLength();

    void encode(ByteBuffer target);

    /** Reads a kind byte and that kind's fields. */
    static Location decode(ByteBuffer source)
    {
        Encoding.need(source, 1, "location kind");
        byte id = source.get();
        return switch (Kind.fromId(id)) {
            case SHARED_MEMORY -> ShmLocation.decode(source);
            case IPC -> IpcLocation.decode(source);
            case REMOTE_SLICES -> RemoteSlices.decode(source);
            case ROUTE_REFUSAL -> RouteRefusal.decode(source);
        };
    }

    /** The kinds of location; ids are part of the protocol and never reused. */
    enum Kind
    {
        SHARED_MEMORY(1), IPC(2), REMOTE_SLICES(3),
        /** Not a place: the server cannot serve the block over the requested route ({@link RouteRefusal}). */
        ROUTE_REFUSAL(4);

        private final byte id;

        Kind(int id)
        {
            this.id = (byte) id;
        }

        public byte id()
        {
            return id;
        }

        public static Kind fromId(byte id)
        {
            for (Kind kind : values()) {
                if (kind.id == id) {
                    return kind;
                }
            }
            throw new IllegalArgumentException("Unknown block location kind " + id);
        }
    }
}
