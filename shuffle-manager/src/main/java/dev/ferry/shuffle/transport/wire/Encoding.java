package dev.ferry.shuffle.transport.wire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Field codecs shared by the messages: length-prefixed strings and byte arrays, and counts that
 * are checked against the bytes left before anything is allocated, so a corrupt count is an
 * error and never a giant allocation.
 */
final class Encoding
{
    /** Longest string field (error messages, application ids), in UTF-8 bytes. */
    static final int MAX_STRING_BYTES = 64 * 1024;
    /** Longest byte array field (nonces, MACs). */
    static final int MAX_BYTES_FIELD = 1024;

    private Encoding() {}

    static int encodedLength(String value)
    {
        return 4 + utf8(value).length;
    }

    static void writeString(ByteBuffer buffer, String value)
    {
        byte[] bytes = utf8(value);
        buffer.putInt(bytes.length);
        buffer.put(bytes);
    }

    static String readString(ByteBuffer buffer)
    {
        return readString(buffer, MAX_STRING_BYTES, "string");
    }

    /** A string field named {@code what}, at most {@code maxBytes} UTF-8 bytes (checked before allocating). */
    static String readString(ByteBuffer buffer, int maxBytes, String what)
    {
        int length = readCount(buffer, 1, what + " length");
        if (length > maxBytes) {
            throw new IllegalArgumentException(what + " field of " + length + " bytes exceeds the limit of " + maxBytes);
        }
        byte[] bytes = new byte[length];
        buffer.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    static int encodedLength(byte[] value)
    {
        return 4 + value.length;
    }

    static void writeBytes(ByteBuffer buffer, byte[] value)
    {
        buffer.putInt(value.length);
        buffer.put(value);
    }

    static byte[] readBytes(ByteBuffer buffer)
    {
        return readBytes(buffer, MAX_BYTES_FIELD, "byte field");
    }

    /** A byte array field named {@code what}, at most {@code maxBytes} long (checked before allocating). */
    static byte[] readBytes(ByteBuffer buffer, int maxBytes, String what)
    {
        int length = readCount(buffer, 1, what + " length");
        if (length > maxBytes) {
            throw new IllegalArgumentException(what + " field of " + length + " bytes exceeds the limit of " + maxBytes);
        }
        byte[] bytes = new byte[length];
        buffer.get(bytes);
        return bytes;
    }

    /** A count of items of at least {@code minItemBytes} each, refused when the buffer cannot hold that many. */
    static int readCount(ByteBuffer buffer, int minItemBytes, String what)
    {
        need(buffer, 4, what);
        int count = buffer.getInt();
        if (count < 0 || (long) count * minItemBytes > buffer.remaining()) {
            throw new IllegalArgumentException("Malformed " + what + " " + count + ": only " + buffer.remaining() + " bytes follow");
        }
        return count;
    }

    static void need(ByteBuffer buffer, int bytes, String what)
    {
        if (buffer.remaining() < bytes) {
            throw new IllegalArgumentException("Truncated message: " + what + " needs " + bytes + " bytes, " + buffer.remaining() + " left");
        }
    }

    private static byte[] utf8(String value)
    {
        return value.getBytes(StandardCharsets.UTF_8);
    }
}
