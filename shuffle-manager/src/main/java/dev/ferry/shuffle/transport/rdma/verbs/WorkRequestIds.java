package dev.ferry.shuffle.transport.rdma.verbs;

/**
 * Packs the connection and the operation into a {@code wr_id}. On an error completion DiSNI
 * keeps only {@code wr_id} and status ({@code qp_num} is stale), so the {@code wr_id} is the only
 * reliable way to route an error back to its connection: 16 bits of connection id, 48 of sequence.
 */
public final class WorkRequestIds
{
    public static final int MAX_CONNECTION_ID = 0xFFFF;
    public static final long MAX_SEQUENCE = (1L << 48) - 1;

    private WorkRequestIds() {}

    public static long of(int connectionId, long sequence)
    {
        if (connectionId < 0 || connectionId > MAX_CONNECTION_ID) {
            throw new IllegalArgumentException("connection id out of range: " + connectionId);
        }
        if (sequence < 0 || sequence > MAX_SEQUENCE) {
            throw new IllegalArgumentException("sequence out of range: " + sequence);
        }
        return ((long) connectionId << 48) | sequence;
    }

    public static int connectionId(long wrId)
    {
        return (int) (wrId >>> 48);
    }

    public static long sequence(long wrId)
    {
        return wrId & MAX_SEQUENCE;
    }

    public static String describe(long wrId)
    {
        return connectionId(wrId) + ":" + sequence(wrId);
    }
}
