package dev.ferry.shuffle.transport.crypto;

import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;

/**
 * The record layer both encrypted streams share: a record is {@code int length | AES-GCM
 * ciphertext with its 16-byte tag}, of at most {@link #MAX_PLAINTEXT_BYTES} plaintext bytes; the
 * nonce is the direction's salt and the record's number, so records cannot be reordered, replayed
 * or dropped without the next one failing its tag.
 */
final class GcmRecords
{
    static final int MAX_PLAINTEXT_BYTES = 64 * 1024;
    static final int TAG_BYTES = 16;
    static final int MAX_RECORD_BYTES = MAX_PLAINTEXT_BYTES + TAG_BYTES;

    private final Cipher cipher;
    private final SecretKeySpec key;
    private final byte[] salt;
    private final int mode;
    private final byte[] nonce = new byte[12];
    private long counter;

    GcmRecords(DirectionKey direction, int mode)
            throws GeneralSecurityException
    {
        this.cipher = Cipher.getInstance("AES/GCM/NoPadding");
        this.key = new SecretKeySpec(direction.key(), "AES");
        this.salt = direction.salt();
        this.mode = mode;
    }

    /** Encrypts or decrypts one record in place into {@code output}; returns the bytes written there. */
    int next(byte[] input, int inputOffset, int length, byte[] output, int outputOffset)
            throws GeneralSecurityException
    {
        ByteBuffer.wrap(nonce).put(salt).putLong(counter++);
        cipher.init(mode, key, new GCMParameterSpec(TAG_BYTES * 8, nonce));
        return cipher.doFinal(input, inputOffset, length, output, outputOffset);
    }

    long records()
    {
        return counter;
    }
}
