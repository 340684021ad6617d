package dev.ferry.shuffle.transport.crypto;

import java.util.Arrays;

import static java.util.Objects.requireNonNull;

/**
 * The AES-GCM key of one direction of one connection and the salt of its record nonces; each
 * direction has its own, so a record counter never repeats a (key, nonce) pair.
 */
public final class DirectionKey
{
    public static final int KEY_BYTES = 16;
    public static final int SALT_BYTES = 4;

    private final byte[] key;
    private final byte[] salt;

    public DirectionKey(byte[] key, byte[] salt)
    {
        if (requireNonNull(key, "key is null").length != KEY_BYTES || requireNonNull(salt, "salt is null").length != SALT_BYTES) {
            throw new IllegalArgumentException("A direction key has " + KEY_BYTES + " key and " + SALT_BYTES + " salt bytes, not " + key.length + " and " + salt.length);
        }
        this.key = key.clone();
        this.salt = salt.clone();
    }

    byte[] key()
    {
        return key.clone();
    }

    byte[] salt()
    {
        return salt.clone();
    }

    @Override
    public boolean equals(Object other)
    {
        return other instanceof DirectionKey that && Arrays.equals(key, that.key) && Arrays.equals(salt, that.salt);
    }

    @Override
    public int hashCode()
    {
        return 31 * Arrays.hashCode(key) + Arrays.hashCode(salt);
    }

    @Override
    public String toString()
    {
        // Never print key material.
        return "DirectionKey[<" + KEY_BYTES + " bytes>]";
    }
}
