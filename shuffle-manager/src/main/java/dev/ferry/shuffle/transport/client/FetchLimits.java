package dev.ferry.shuffle.transport.client;

import java.time.Duration;

import dev.ferry.conf.ConfigSource;
import dev.ferry.shuffle.transport.TransportConfigKeys;

/**
 * How the stream transport treats its peers: connection retries for transient errors (a refused or
 * timed-out connect), with a doubling wait, and how many fetches may be in flight to one peer.
 */
public record FetchLimits(int connectRetries, Duration firstRetryWait, int maxConnectionsPerPeer)
{
    public FetchLimits
    {
        if (connectRetries < 0) {
            throw new IllegalArgumentException(TransportConfigKeys.CONNECT_MAX_RETRIES.name() + " must not be negative: " + connectRetries);
        }
        if (firstRetryWait.isNegative()) {
            throw new IllegalArgumentException(TransportConfigKeys.CONNECT_RETRY_WAIT_MILLIS.name() + " must not be negative: " + firstRetryWait);
        }
        if (maxConnectionsPerPeer <= 0) {
            throw new IllegalArgumentException(TransportConfigKeys.MAX_CONNECTIONS_PER_PEER.name() + " must be positive: " + maxConnectionsPerPeer);
        }
    }

    public static FetchLimits defaults()
    {
        return new FetchLimits(TransportConfigKeys.CONNECT_MAX_RETRIES.defaultValue(), Duration.ofMillis(TransportConfigKeys.CONNECT_RETRY_WAIT_MILLIS.defaultValue()),
                TransportConfigKeys.MAX_CONNECTIONS_PER_PEER.defaultValue());
    }

    public static FetchLimits from(ConfigSource config)
    {
        return new FetchLimits(TransportConfigKeys.CONNECT_MAX_RETRIES.get(config), Duration.ofMillis(TransportConfigKeys.CONNECT_RETRY_WAIT_MILLIS.get(config)),
                TransportConfigKeys.MAX_CONNECTIONS_PER_PEER.get(config));
    }

    /** The wait before retry {@code attempt} (1-based): the first wait, doubled per earlier retry, at most 30 s. */
    public Duration retryWait(int attempt)
    {
        long millis = firstRetryWait.toMillis() << Math.min(attempt - 1, 16);
        return Duration.ofMillis(Math.min(millis, 30_000));
    }
}
