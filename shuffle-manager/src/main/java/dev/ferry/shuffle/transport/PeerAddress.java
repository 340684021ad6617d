package dev.ferry.shuffle.transport;

import java.util.Objects;

import static java.util.Objects.requireNonNull;

/**
 * Where a remote executor's block server listens, and what it said about itself in its MapStatus
 * location's {@code topologyInfo} (its simulated or real node and GPU, where its blocks live), so a
 * topology-aware transport can pick a route per peer without asking the driver. Empty when unknown.
 * Two addresses are equal when they name the same executor endpoint, whatever the topology info.
 */
public record PeerAddress(String executorId, String host, int port, String topologyInfo)
{
    public PeerAddress
    {
        requireNonNull(executorId, "executorId is null");
        requireNonNull(host, "host is null");
        requireNonNull(topologyInfo, "topologyInfo is null");
        if (port <= 0 || port > 65535) {
            throw new IllegalArgumentException("Invalid port " + port + " for executor " + executorId);
        }
    }

    public PeerAddress(String executorId, String host, int port)
    {
        this(executorId, host, port, "");
    }

    @Override
    public boolean equals(Object other)
    {
        return other instanceof PeerAddress that && executorId.equals(that.executorId) && host.equals(that.host) && port == that.port;
    }

    @Override
    public int hashCode()
    {
        return Objects.hash(executorId, host, port);
    }

    @Override
    public String toString()
    {
        return "executor " + executorId + " at " + host + ":" + port;
    }
}
