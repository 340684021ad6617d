package dev.ferry.shuffle.transport.wire;

import java.nio.ByteBuffer;

/**
 * A request for a list of blocks laid out on the wire exactly like a {@link FetchRequest}'s, under
 * its own {@link MessageType} so the server knows which route to answer on. Implementations are
 * records holding that {@link FetchRequest}; the codec lives here once.
 */
public sealed interface BlockListRequest
        extends Message
        permits ShmFetchRequest, RdmaFetchRequest, IpcFetchRequest, GpuRdmaFetchRequest
{
    /** The requested blocks and the request id, as a plain {@link FetchRequest}. */
    FetchRequest blocks();

    default long requestId()
    {
        return blocks().requestId();
    }

    @Override
    default int encodedLength()
    {
        return blocks().encodedLength();
    }

    @Override
    default void encode(ByteBuffer target)
    {
        blocks().encode(target);
    }
}
