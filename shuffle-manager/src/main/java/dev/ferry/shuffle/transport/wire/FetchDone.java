package dev.ferry.shuffle.transport.wire;

import java.nio.ByteBuffer;

/**
 * The reader has taken every block of its last request (mapped, copied or READ them): the server
 * may let go of what it held for them (shared-memory blocks and arena ranges, RDMA registrations,
 * borrowed GPU blocks) now rather than at the connection's next request, which on an idle pooled
 * connection may not come for a long time. No answer. Wire: no fields.
 */
public record FetchDone()
        implements Request
{
    @Override
    public MessageType type()
    {
        return MessageType.FETCH_DONE;
    }

    @Override
    public int encodedLength()
    {
        return 0;
    }

    @Override
    public void encode(ByteBuffer target)
    {
    }
}
