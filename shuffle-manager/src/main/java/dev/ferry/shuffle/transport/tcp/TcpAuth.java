package dev.ferry.shuffle.transport.tcp;

import java.time.Duration;

import dev.ferry.transport.auth.SparkAuthSettings;

import static java.util.Objects.requireNonNull;

/**
 * Whether the TCP transport authenticates peers: with {@code spark.authenticate} on, each connection
 * runs the HMAC handshake of {@link dev.ferry.transport.auth.AuthBootstrap} with Spark's shared
 * secret before the first request; the server serves nothing to a peer that fails it.
 */
public record TcpAuth(SparkAuthSettings settings, Duration timeout)
{
    public TcpAuth
    {
        requireNonNull(settings, "settings is null");
        requireNonNull(timeout, "timeout is null");
    }

    public static TcpAuth none()
    {
        return new TcpAuth(new SparkAuthSettings(false, "", java.util.Optional.empty()), Duration.ofSeconds(30));
    }

    public boolean enabled()
    {
        return settings.enabled();
    }
}
