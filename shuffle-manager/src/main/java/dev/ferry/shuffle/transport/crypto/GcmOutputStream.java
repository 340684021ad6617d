package dev.ferry.shuffle.transport.crypto;

import javax.crypto.Cipher;
import java.io.IOException;
import java.io.OutputStream;
import java.security.GeneralSecurityException;

import static java.util.Objects.requireNonNull;

/**
 * Encrypts what is written into AES-GCM records ({@link GcmRecords}) on {@code out}: plaintext is
 * gathered up to a record's size and sealed when the record is full or on {@link #flush}. Not thread-safe.
 */
public final class GcmOutputStream
        extends OutputStream
{
    private final OutputStream out;
    private final GcmRecords records;
    private final byte[] plaintext = new byte[GcmRecords.MAX_PLAINTEXT_BYTES];
    // Length prefix and ciphertext, written in one call.
    private final byte[] record = new byte[Integer.BYTES + GcmRecords.MAX_RECORD_BYTES];
    private int pending;

    public GcmOutputStream(OutputStream out, DirectionKey key)
            throws IOException
    {
        this.out = requireNonNull(out, "out is null");
        try {
            this.records = new GcmRecords(key, Cipher.ENCRYPT_MODE);
        }
        catch (GeneralSecurityException e) {
            throw new IOException("Cannot set up AES-GCM: " + e.getMessage(), e);
        }
    }

    @Override
    public void write(int b)
            throws IOException
    {
        if (pending == plaintext.length) {
            seal();
        }
        plaintext[pending++] = (byte) b;
    }

    @Override
    public void write(byte[] bytes, int offset, int length)
            throws IOException
    {
        while (length > 0) {
            if (pending == plaintext.length) {
                seal();
            }
            int part = Math.min(length, plaintext.length - pending);
            System.arraycopy(bytes, offset, plaintext, pending, part);
            pending += part;
            offset += part;
            length -= part;
        }
    }

    @Override
    public void flush()
            throws IOException
    {
        if (pending > 0) {
            seal();
        }
        out.flush();
    }

    private void seal()
            throws IOException
    {
        int sealed;
        try {
            sealed = records.next(plaintext, 0, pending, record, Integer.BYTES);
        }
        catch (GeneralSecurityException e) {
            throw new IOException("AES-GCM encryption failed: " + e.getMessage(), e);
        }
        record[0] = (byte) (sealed >>> 24);
        record[1] = (byte) (sealed >>> 16);
        record[2] = (byte) (sealed >>> 8);
        record[3] = (byte) sealed;
        out.write(record, 0, Integer.BYTES + sealed);
        pending = 0;
    }

    @Override
    public void close()
            throws IOException
    {
        try {
            flush();
        }
        finally {
            out.close();
        }
    }
}
