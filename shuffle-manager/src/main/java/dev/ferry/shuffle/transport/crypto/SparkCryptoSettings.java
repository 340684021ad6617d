package dev.ferry.shuffle.transport.crypto;

import dev.ferry.conf.ConfigSource;

/**
 * Spark's own encryption settings, which Ferry's transports honour rather than duplicate (Spark
 * keys, read here by name): {@code spark.network.crypto.enabled} (every Ferry byte stream over TCP
 * is encrypted with the handshake's keys; routes whose bytes would leave the encrypted stream,
 * one-sided RDMA READs, are not used) and {@code spark.io.encryption.enabled} (routes that leave a
 * block in shared memory or an exported device buffer beyond its request are not used).
 */
public record SparkCryptoSettings(boolean networkCrypto, boolean ioEncryption)
{
    public static final String NETWORK_CRYPTO = "spark.network.crypto.enabled";
    public static final String IO_ENCRYPTION = "spark.io.encryption.enabled";

    public static SparkCryptoSettings none()
    {
        return new SparkCryptoSettings(false, false);
    }

    public static SparkCryptoSettings from(ConfigSource config)
    {
        return new SparkCryptoSettings(flag(config, NETWORK_CRYPTO), flag(config, IO_ENCRYPTION));
    }

    private static boolean flag(ConfigSource config, String key)
    {
        return config.get(key).map(value -> Boolean.parseBoolean(value.trim())).orElse(false);
    }
}
