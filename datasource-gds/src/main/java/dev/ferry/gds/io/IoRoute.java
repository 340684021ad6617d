package dev.ferry.gds.io;

import dev.ferry.topology.route.Route;

/** The way one file's bytes reach memory; each route is one {@link ParquetDataSource} implementation. */
public enum IoRoute
{
    /** Positional reads into host memory. */
    HOST,
    /** Reads into pinned host buffers, copied to the device. */
    BOUNCE,
    /** cuFile straight into device buffers. */
    GDS;

    /** The route the topology policy's file rule chose, for a file read. */
    public static IoRoute fromPolicy(Route route)
    {
        switch (route) {
            case GDS:
                return GDS;
            case BOUNCE:
                return BOUNCE;
            case HOST:
                return HOST;
            case LOCAL:
            case NVLINK:
            case PCIE_P2P:
            case PEER_GPU_D2H:
            case HOST_STAGED:
            case HOST_SHM:
            case GPUDIRECT_RDMA:
            case RDMA_HOST_STAGED:
            case RDMA:
            case IPOIB_TCP:
            case TCP:
                throw new IllegalArgumentException("Not a file route: " + route);
        }
        throw new IllegalArgumentException("Unknown route " + route);
    }
}
