package dev.ferry.examples.bench.transport;

import org.apache.arrow.memory.util.MemoryUtil;

/**
 * What a reader does with a fetched block at the least: reads every byte once (as the decoder
 * will). Timing a route with this pass, and the memcpy baseline with the same pass over its
 * copy, compares what each costs until the bytes have been read where the reader got them: a
 * route that hands over a mapping instead of a copy pays its page faults here, not nowhere.
 * Also checks the benchmark's pattern (the first byte of every 4 KiB page), so a route that
 * delivers the wrong bytes fails instead of measuring.
 */
final class BlockConsumer
{
    static final int PAGE = 4096;

    private BlockConsumer() {}

    /** Reads {@code length} bytes at {@code address}, which hold bytes {@code globalOffset}... of the benchmark's pattern; returns a checksum. */
    static long consume(long address, long length, long globalOffset)
    {
        long sum = 0;
        long end = length - length % 8;
        for (long offset = 0; offset < end; offset += 8) {
            sum += MemoryUtil.getLong(address + offset);
        }
        for (long offset = end; offset < length; offset++) {
            sum += MemoryUtil.getByte(address + offset);
        }
        for (long page = 0; page < length; page += PAGE) {
            byte expected = (byte) (globalOffset + page);
            byte actual = MemoryUtil.getByte(address + page);
            if (actual != expected) {
                throw new IllegalStateException("Byte " + page + " of a block starting at pattern offset " + globalOffset + " is " + actual + ", expected " + expected);
            }
        }
        return sum;
    }

    /** Fills {@code length} bytes at {@code address} with the pattern from {@code globalOffset} on (one byte per page set, the rest zero). */
    static void fill(long address, long length, long globalOffset)
    {
        MemoryUtil.setMemory(address, length, (byte) 0);
        for (long page = 0; page < length; page += PAGE) {
            MemoryUtil.putByte(address + page, (byte) (globalOffset + page));
        }
    }
}
