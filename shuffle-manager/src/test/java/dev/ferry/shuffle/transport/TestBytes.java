package dev.ferry.shuffle.transport;

import java.nio.ByteBuffer;
import java.util.Random;

/** Reproducible test bytes, so another process can check what this one wrote. */
public final class TestBytes
{
    private TestBytes() {}

    public static byte[] bytes(long seed, int length)
    {
        byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    public static ByteBuffer direct(long seed, int length)
    {
        return ByteBuffer.allocateDirect(length).put(bytes(seed, length)).flip();
    }

    public static byte[] toArray(ByteBuffer buffer)
    {
        ByteBuffer copy = buffer.duplicate();
        byte[] bytes = new byte[copy.remaining()];
        copy.get(bytes);
        return bytes;
    }

    /** Where {@code needle} first occurs in {@code haystack}, or -1 (to look for plaintext in captured bytes). */
    public static int indexOf(byte[] haystack, byte[] needle)
    {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
