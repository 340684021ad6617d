package dev.ferry.shuffle.transport.rdma.verbs;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits a registration into chunks a single {@code ibv_mr} can hold. DiSNI's {@code regMr} takes
 * an {@code int} length, so one region holds at most {@link #MAX_REGION_BYTES}; SparkRDMA failed
 * outright on larger files, Ferry registers them as several regions instead.
 */
public final class RegistrationChunks
{
    public static final int MAX_REGION_BYTES = Integer.MAX_VALUE;

    private RegistrationChunks() {}

    /** One chunk: {@code [offset, +length)} of the memory being registered. */
    public record Chunk(long offset, int length) {}

    public static List<Chunk> split(long totalLength, int maxChunk)
    {
        if (totalLength <= 0) {
            throw new IllegalArgumentException("Cannot register " + totalLength + " bytes");
        }
        if (maxChunk <= 0) {
            throw new IllegalArgumentException("The largest region must be positive, got " + maxChunk);
        }
        List<Chunk> chunks = new ArrayList<>();
        for (long offset = 0; offset < totalLength; ) {
            int length = (int) Math.min(maxChunk, totalLength - offset);
            chunks.add(new Chunk(offset, length));
            offset += length;
        }
        return chunks;
    }
}
