package dev.ferry.shuffle.transport.wire;

import java.nio.ByteBuffer;

/**
 * A message of the TCP shuffle protocol. On the wire: a frame of {@code int length} (the bytes
 * after it), the type byte, the message's header ({@link #encodedLength} bytes, written by
 * {@link #encode}) and, for a {@link BlockResponse}, the block's bytes. Big-endian throughout.
 * Adding a message: a class here, a {@link MessageType} with a new id (never a retired one), a case
 * in {@link FrameReader}, for a request a case in the server's dispatch, a row in the module README's
 * protocol table (a test checks it) and a round trip in the protocol tests.
 */
public sealed interface Message
        permits Request, BlockResponse, BlockLocation, FetchFailure, AuthClientHello, AuthServerChallenge, AuthClientProof, AuthServerProof,
        AuthFailure, RdmaAdmission
{
    MessageType type();

    /** Bytes {@link #encode} writes (the header only, not a trailing body). */
    int encodedLength();

    /** Writes exactly {@link #encodedLength} bytes. */
    void encode(ByteBuffer target);
}
