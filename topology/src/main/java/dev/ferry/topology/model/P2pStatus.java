package dev.ferry.topology.model;

import static java.util.Objects.requireNonNull;

/**
 * NVML's {@code nvmlDeviceGetP2PStatus} for a GPU pair, READ and WRITE. Looked up symmetrically.
 *
 * @param a a GPU name
 * @param b another GPU name
 * @param read {@code NVML_P2P_CAPS_INDEX_READ}
 * @param write {@code NVML_P2P_CAPS_INDEX_WRITE}
 */
public record P2pStatus(String a, String b, P2pAccess read, P2pAccess write)
{
    public P2pStatus
    {
        requireNonNull(a, "a is null");
        requireNonNull(b, "b is null");
        requireNonNull(read, "read is null");
        requireNonNull(write, "write is null");
    }

    public boolean connects(String x, String y)
    {
        return (a.equals(x) && b.equals(y)) || (a.equals(y) && b.equals(x));
    }

    public boolean bothOk()
    {
        return read.state() == P2pState.OK && write.state() == P2pState.OK;
    }
}
