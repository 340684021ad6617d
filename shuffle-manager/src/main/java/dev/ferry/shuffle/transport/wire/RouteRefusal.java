package dev.ferry.shuffle.transport.wire;

import java.nio.ByteBuffer;

import static java.util.Objects.requireNonNull;

/**
 * The server cannot answer a block over the route the request asked for, although it has the block:
 * its NIC refused to register the block's GPU memory ({@code ibv_reg_mr}: no peer memory, BAR1 full),
 * or the block could not be exported over CUDA IPC. Not a fetch failure: the reader falls back for
 * this peer to the next route and asks again. Wire: int length, UTF-8 reason (at most 64 KiB).
 */
public record RouteRefusal(String reason)
        implements Location
{
    public RouteRefusal
    {
        requireNonNull(reason, "reason is null");
    }

    /** Longest reason a server sends, in characters (an exception's message may be longer). */
    public static final int MAX_REASON_CHARS = 4096;

    /** A refusal with {@code reason} cut to {@link #MAX_REASON_CHARS}, so the frame stays within its limit. */
    public static RouteRefusal of(String reason)
    {
        return new RouteRefusal(reason.length() <= MAX_REASON_CHARS ? reason : reason.substring(0, MAX_REASON_CHARS) + "...");
    }

    @Override
    public Kind kind()
    {
        return Kind.ROUTE_REFUSAL;
    }

    @Override
    public int encodedLength()
    {
        return Encoding.encodedLength(reason);
    }

    @Override
    public void encode(ByteBuffer target)
    {
        Encoding.writeString(target, reason);
    }

    public static RouteRefusal decode(ByteBuffer source)
    {
        return new RouteRefusal(Encoding.readString(source, Encoding.MAX_STRING_BYTES, "route refusal reason"));
    }
}
