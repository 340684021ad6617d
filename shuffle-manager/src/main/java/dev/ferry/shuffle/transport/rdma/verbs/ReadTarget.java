package dev.ferry.shuffle.transport.rdma.verbs;

import dev.ferry.shuffle.transport.wire.RemoteSlice;

import static java.util.Objects.requireNonNull;

/** One remote slice to READ and where its bytes go in the local sink registration. */
public record ReadTarget(RemoteSlice remote, long sinkOffset)
{
    public ReadTarget
    {
        requireNonNull(remote, "remote is null");
        if (sinkOffset < 0) {
            throw new IllegalArgumentException("sink offset must not be negative: " + sinkOffset);
        }
    }
}
