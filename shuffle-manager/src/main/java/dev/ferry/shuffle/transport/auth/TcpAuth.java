package dev.ferry.shuffle.transport.auth;

import java.time.Duration;
import java.util.Optional;

import dev.ferry.shuffle.transport.auth.SparkAuthSettings;

import static java.util.Objects.requireNonNull;

/**
 * Whether the TCP transport authenticates peers and encrypts its streams: with {@code spark.authenticate}
 * on, each connection runs the handshake of {@link dev.ferry.shuffle.transport.auth.AuthBootstrap} with
 * Spark's shared secret before the first request (the server serves nothing to a peer that fails
 * it); with {@code spark.network.crypto.enabled} too ({@code encrypt}), every byte after the
 * handshake travels in AES-GCM records under the keys the handshake derived.
 */
public record TcpAuth(SparkAuthSettings settings, Duration timeout, boolean encrypt)
{
    public TcpAuth
    {
        requireNonNull(settings, "settings is null");
        requireNonNull(timeout, "timeout is null");
        if (encrypt && !settings.enabled()) {
            // As Spark: its network encryption keys come from authentication.
            throw new IllegalArgumentException("spark.network.crypto.enabled needs spark.authenticate (the keys come from the handshake)");
        }
    }

    /** Authentication as {@code settings} say, no encryption. */
    public TcpAuth(SparkAuthSettings settings, Duration timeout)
    {
        this(settings, timeout, false);
    }

    public static TcpAuth none()
    {
        return new TcpAuth(new SparkAuthSettings(false, "", Optional.empty()), Duration.ofSeconds(30), false);
    }

    public boolean enabled()
    {
        return settings.enabled();
    }
}
