package dev.ferry.device.partition;

import java.math.BigInteger;

/**
 * Spark's Murmur3 row hash on host values, written from Spark's {@code Murmur3_x86_32} and
 * {@code Murmur3Hash} semantics, independently of the kernels' bit handling: the reference side of
 * the partition kernels' tests and of the GPU check. Seed 42; each key's hash seeds the next.
 */
public final class SparkMurmur3
{
    public static final int SEED = 42;

    private SparkMurmur3() {}

    private static int mixK1(int k1)
    {
        return Integer.rotateLeft(k1 * 0xcc9e2d51, 15) * 0x1b873593;
    }

    private static int mixH1(int h1, int k1)
    {
        return Integer.rotateLeft(h1 ^ k1, 13) * 5 + 0xe6546b64;
    }

    private static int fmix(int h1, int length)
    {
        h1 ^= length;
        h1 ^= h1 >>> 16;
        h1 *= 0x85ebca6b;
        h1 ^= h1 >>> 13;
        h1 *= 0xc2b2ae35;
        return h1 ^ (h1 >>> 16);
    }

    public static int hashInt(int value, int seed)
    {
        return fmix(mixH1(seed, mixK1(value)), 4);
    }

    public static int hashLong(long value, int seed)
    {
        int h1 = mixH1(seed, mixK1((int) value));
        return fmix(mixH1(h1, mixK1((int) (value >>> 32))), 8);
    }

    /** Spark's hashUnsafeBytes: little-endian words, then each tail byte sign-extended as a word of its own. */
    public static int hashBytes(byte[] bytes, int offset, int length, int seed)
    {
        int aligned = length - length % 4;
        int h1 = seed;
        for (int i = 0; i < aligned; i += 4) {
            int word = (bytes[offset + i] & 0xFF) | (bytes[offset + i + 1] & 0xFF) << 8 | (bytes[offset + i + 2] & 0xFF) << 16 | (bytes[offset + i + 3] & 0xFF) << 24;
            h1 = mixH1(h1, mixK1(word));
        }
        for (int i = aligned; i < length; i++) {
            h1 = mixH1(h1, mixK1(bytes[offset + i]));
        }
        return fmix(h1, length);
    }

    public static int hashFloat(float value, int seed)
    {
        return hashInt(value == -0.0f ? 0 : Float.floatToIntBits(value), seed);
    }

    public static int hashDouble(double value, int seed)
    {
        return hashLong(value == -0.0d ? 0L : Double.doubleToLongBits(value), seed);
    }

    public static int hashBoolean(boolean value, int seed)
    {
        return hashInt(value ? 1 : 0, seed);
    }

    /** A decimal's unscaled value: precision <= 18 hashes the long, larger the two's-complement big-endian bytes. */
    public static int hashDecimal(BigInteger unscaled, int precision, int seed)
    {
        if (precision <= 18) {
            return hashLong(unscaled.longValueExact(), seed);
        }
        byte[] bytes = unscaled.toByteArray();
        return hashBytes(bytes, 0, bytes.length, seed);
    }

    /** Spark's pmod(hash, partitions). */
    public static int partition(int hash, int partitions)
    {
        return Math.floorMod(hash, partitions);
    }
}
