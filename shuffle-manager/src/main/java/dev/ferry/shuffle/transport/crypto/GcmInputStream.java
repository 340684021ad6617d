package dev.ferry.shuffle.transport.crypto;

import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.security.GeneralSecurityException;

import static java.util.Objects.requireNonNull;

/**
 * Decrypts the AES-GCM records ({@link GcmRecords}) {@code in} carries. A record's length is
 * checked against the record limit before it is read, and a record whose tag fails (tampered,
 * reordered, or sealed with another key) is an {@link IOException}: no byte of it is returned. Not thread-safe.
 */
public final class GcmInputStream
        extends InputStream
{
    private final DataInputStream in;
    private final GcmRecords records;
    private final byte[] record = new byte[GcmRecords.MAX_RECORD_BYTES];
    private final byte[] plaintext = new byte[GcmRecords.MAX_RECORD_BYTES];
    private int position;
    private int limit;

    public GcmInputStream(InputStream in, DirectionKey key)
            throws IOException
    {
        this.in = new DataInputStream(requireNonNull(in, "in is null"));
        try {
            this.records = new GcmRecords(key, Cipher.DECRYPT_MODE);
        }
        catch (GeneralSecurityException e) {
            throw new IOException("Cannot set up AES-GCM: " + e.getMessage(), e);
        }
    }

    /** False at a clean end of stream (between records). */
    private boolean fill()
            throws IOException
    {
        int length;
        try {
            length = in.readInt();
        }
        catch (EOFException e) {
            return false;
        }
        if (length <= GcmRecords.TAG_BYTES || length > GcmRecords.MAX_RECORD_BYTES) {
            throw new IOException("Encrypted record " + records.records() + " claims " + length + " bytes, outside " + (GcmRecords.TAG_BYTES + 1) + ".." + GcmRecords.MAX_RECORD_BYTES);
        }
        try {
            in.readFully(record, 0, length);
        }
        catch (EOFException e) {
            EOFException named = new EOFException("the stream ended inside encrypted record " + records.records() + " of " + length + " bytes");
            named.initCause(e);
            throw named;
        }
        try {
            limit = records.next(record, 0, length, plaintext, 0);
        }
        catch (AEADBadTagException e) {
            throw new IOException("Encrypted record " + records.records() + " failed authentication: tampered with, out of order, or sealed with another key", e);
        }
        catch (GeneralSecurityException e) {
            throw new IOException("AES-GCM decryption failed: " + e.getMessage(), e);
        }
        position = 0;
        return true;
    }

    @Override
    public int read()
            throws IOException
    {
        while (position == limit) {
            if (!fill()) {
                return -1;
            }
        }
        return plaintext[position++] & 0xff;
    }

    @Override
    public int read(byte[] bytes, int offset, int length)
            throws IOException
    {
        if (length == 0) {
            return 0;
        }
        while (position == limit) {
            if (!fill()) {
                return -1;
            }
        }
        int part = Math.min(length, limit - position);
        System.arraycopy(plaintext, position, bytes, offset, part);
        position += part;
        return part;
    }

    @Override
    public int available()
    {
        return limit - position;
    }

    @Override
    public void close()
            throws IOException
    {
        in.close();
    }
}
