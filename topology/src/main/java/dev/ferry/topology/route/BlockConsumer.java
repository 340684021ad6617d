package dev.ferry.topology.route;

/**
 * Where the reader of a block held in another GPU's memory wants it, which decides whether a peer
 * copy can pay off. A peer copy ({@link Route#NVLINK}, {@link Route#PCIE_P2P}) lands the block in
 * the reader's GPU; for a {@link #CPU} consumer (Spark's reduce side, which decodes on the host)
 * that is a detour, and one D->H out of the exporter's GPU ({@link Route#PEER_GPU_D2H}) is the
 * cheapest path.
 */
public enum BlockConsumer
{
    /** The block is wanted in host memory: Spark's CPU operators on the reduce side. */
    CPU("CPU consumer (block wanted in host memory)"),
    /** The block is wanted in the reader's GPU memory: a consumer that keeps batches on the device. */
    DEVICE("device consumer (block wanted in the reader's GPU memory)");

    private final String description;

    BlockConsumer(String description)
    {
        this.description = description;
    }

    /** How decisions name the consumer they assumed. */
    public String describe()
    {
        return description;
    }
}
