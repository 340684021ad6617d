package dev.ferry.shuffle.transport.contract;

import java.time.Duration;
import java.util.Optional;

import dev.ferry.shuffle.transport.auth.SparkAuthSettings;
import dev.ferry.shuffle.transport.auth.TcpAuth;
import dev.ferry.shuffle.transport.crypto.SparkCryptoSettings;

/**
 * Spark's security settings one endpoint pair runs under: {@code secret} (empty: {@code spark.authenticate}
 * off) and {@code encrypt} ({@code spark.network.crypto.enabled} and {@code spark.io.encryption.enabled}).
 */
public record ContractSecurity(Optional<String> secret, boolean encrypt)
{
    static final String APP = "app-contract";

    public ContractSecurity
    {
        if (encrypt && secret.isEmpty()) {
            throw new IllegalArgumentException("encryption needs authentication");
        }
    }

    static ContractSecurity of(Optional<String> secret)
    {
        return new ContractSecurity(secret, false);
    }

    static ContractSecurity encrypted(String secret)
    {
        return new ContractSecurity(Optional.of(secret), true);
    }

    /** The same encryption with another (or no) secret, as a reader that got the secret wrong. */
    ContractSecurity withSecret(Optional<String> other)
    {
        return new ContractSecurity(other, encrypt && other.isPresent());
    }

    TcpAuth tcpAuth()
    {
        return secret.map(value -> new TcpAuth(new SparkAuthSettings(true, APP, Optional.of(value)), Duration.ofSeconds(10), encrypt)).orElse(TcpAuth.none());
    }

    SparkCryptoSettings crypto()
    {
        return new SparkCryptoSettings(encrypt, encrypt);
    }
}
