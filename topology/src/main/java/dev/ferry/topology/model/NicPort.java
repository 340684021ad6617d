package dev.ferry.topology.model;

import static java.util.Objects.requireNonNull;

/**
 * One port of an RDMA NIC.
 *
 * @param number the port number (1-based in sysfs)
 * @param state the state as read, e.g. {@code 4: ACTIVE}
 * @param active whether the port can carry traffic
 * @param rateGbps the signalling rate in Gb/s (e.g. 400 for NDR x4); 0 when unknown
 */
public record NicPort(int number, String state, boolean active, double rateGbps)
{
    public NicPort
    {
        requireNonNull(state, "state is null");
        if (rateGbps < 0 || Double.isNaN(rateGbps)) {
            throw new IllegalArgumentException("Port rate must be >= 0 Gb/s, got " + rateGbps);
        }
    }
}
