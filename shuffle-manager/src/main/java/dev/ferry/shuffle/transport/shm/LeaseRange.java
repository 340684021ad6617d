package dev.ferry.shuffle.transport.shm;

import java.nio.ByteBuffer;

/**
 * The range of a staging arena that a lease file grants, written into the lease by the writer:
 * long offset, long length. A reader compares it with the handle it was sent, so a handle cannot
 * reach bytes of the arena beyond the block it names.
 */
final class LeaseRange
{
    static final int BYTES = 16;

    private LeaseRange() {}

    static byte[] toBytes(long offset, long length)
    {
        return ByteBuffer.allocate(BYTES).putLong(offset).putLong(length).array();
    }

    /** Whether {@code lease} (a lease file's bytes) grants exactly {@code [offset, +length)}. */
    static boolean grants(byte[] lease, long offset, long length)
    {
        if (lease.length != BYTES) {
            return false;
        }
        ByteBuffer range = ByteBuffer.wrap(lease);
        return range.getLong() == offset && range.getLong() == length;
    }
}
