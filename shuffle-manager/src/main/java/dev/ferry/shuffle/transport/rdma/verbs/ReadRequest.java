package dev.ferry.shuffle.transport.rdma.verbs;

/**
 * One one-sided RDMA READ work request with a single scatter entry: read {@code length} bytes at
 * {@code remoteAddress} (covered by {@code rkey} on the peer) into {@code localAddress} (covered by
 * {@code lkey} here). Only {@code signaled} requests complete on success; errors always complete.
 */
public record ReadRequest(long wrId, long localAddress, int lkey, long remoteAddress, int rkey, int length, boolean signaled)
{
    public ReadRequest
    {
        if (length <= 0) {
            throw new IllegalArgumentException("READ length must be positive, got " + length);
        }
    }

    /** A READ of {@code [localOffset, +length)} of a local region from {@code [remoteAddress, +length)} of a peer's region. */
    public static ReadRequest into(long wrId, MemoryRegion sink, long localOffset, long remoteAddress, int rkey, int length, boolean signaled)
    {
        if (localOffset < 0 || length <= 0 || localOffset > sink.length() - (long) length) {
            throw new IllegalArgumentException("READ of " + length + " bytes at offset " + localOffset + " does not fit " + sink);
        }
        return new ReadRequest(wrId, sink.address() + localOffset, sink.lkey(), remoteAddress, rkey, length, signaled);
    }
}
