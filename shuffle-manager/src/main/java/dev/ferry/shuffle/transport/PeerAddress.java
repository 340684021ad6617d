package dev.ferry.shuffle.transport;

import static java.util.Objects.requireNonNull;

/** Where a remote executor's block server listens. */
public record PeerAddress(String executorId, String host, int port)
{
    public PeerAddress
    {
        requireNonNull(executorId, "executorId is null");
        requireNonNull(host, "host is null");
        if (port <= 0 || port > 65535) {
            throw new IllegalArgumentException("Invalid port " + port + " for executor " + executorId);
        }
    }

    @Override
    public String toString()
    {
        return "executor " + executorId + " at " + host + ":" + port;
    }
}
