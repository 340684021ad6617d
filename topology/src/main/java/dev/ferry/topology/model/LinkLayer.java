package dev.ferry.topology.model;

/** The link layer of an RDMA port ({@code /sys/class/infiniband/<hca>/ports/<n>/link_layer}). */
public enum LinkLayer
{
    INFINIBAND("InfiniBand"),
    /** RDMA over Converged Ethernet: sysfs says {@code Ethernet} for the port of a RoCE HCA. */
    ROCE("RoCE"),
    IWARP("iWARP"),
    /** Not known, e.g. a NIC seen only as a column of an {@code nvidia-smi} capture. */
    UNKNOWN("unknown link layer");

    private final String displayName;

    LinkLayer(String displayName)
    {
        this.displayName = displayName;
    }

    public String displayName()
    {
        return displayName;
    }
}
