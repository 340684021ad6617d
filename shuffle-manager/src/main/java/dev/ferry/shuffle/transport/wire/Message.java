package dev.ferry.shuffle.transport.wire;

import java.nio.ByteBuffer;

/**
 * A message of the TCP shuffle protocol. On the wire: a frame of {@code int length} (the bytes
 * after it), the type byte, the message's header ({@link #encodedLength} bytes, written by
 * {@link #encode}) and, for a {@link BlockResponse}, the block's bytes. Big-endian throughout.
 * Adding a message: a class here, a {@link MessageType}, a case in {@link FrameReader}, a server
 * branch, and a line in the protocol test.
 */
public sealed interface Message
        permits FetchRequest, BlockResponse, FetchFailure, BlockListRequest, ShmBlockResponse, RdmaBlockResponse, IpcBlockResponse,
        GpuRdmaBlockResponse, AuthClientHello, AuthServerChallenge, AuthClientProof, AuthServerProof, AuthFailure, FetchDone,
        RdmaAdmissionRequest, RdmaAdmission
{
    MessageType type();

    /** Bytes {@link #encode} writes (the header only, not a trailing body). */
    int encodedLength();

    /** Writes exactly {@link #encodedLength} bytes. */
    void encode(ByteBuffer target);
}
