package dev.ferry.device.contract;

import java.nio.ByteBuffer;
import java.util.Random;

/** Reproducible test bytes, so a child process can check what its parent wrote. */
public final class Patterns
{
    private Patterns() {}

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

    /** The index of the first difference, or -1. */
    public static int firstMismatch(byte[] expected, byte[] actual)
    {
        if (expected.length != actual.length) {
            return Math.min(expected.length, actual.length);
        }
        for (int i = 0; i < expected.length; i++) {
            if (expected[i] != actual[i]) {
                return i;
            }
        }
        return -1;
    }
}
