package dev.ferry.topology.report;

import dev.ferry.topology.route.Route;

/**
 * One colour per {@link Route} for the drawings (the SVG and the demo report). The switch has no default, so a
 * new route does not compile until it gets a colour, and TestRouteColours checks that no two routes share one:
 * a reader tells GPUDIRECT_RDMA from GDS and BOUNCE from HOST_STAGED by colour alone.
 */
public final class RouteColours
{
    private RouteColours() {}

    public static String colour(Route route)
    {
        return switch (route) {
            case LOCAL -> "#333333";
            case NVLINK -> "#2e7d32";
            case PCIE_P2P -> "#6a1b9a";
            case PEER_GPU_D2H -> "#9ccc65";
            case HOST_STAGED -> "#e67e22";
            case HOST_SHM -> "#8d6e63";
            case GPUDIRECT_RDMA -> "#1565c0";
            case RDMA_HOST_STAGED -> "#c0392b";
            case RDMA -> "#00838f";
            case IPOIB_TCP -> "#7f8c8d";
            case TCP -> "#455a64";
            case GDS -> "#d81b60";
            case BOUNCE -> "#9a7d0a";
            case HOST -> "#5d4037";
        };
    }

    /** Routes through host memory are dashed: the data takes a detour on its way. */
    public static boolean dashed(Route route)
    {
        return switch (route) {
            case HOST_STAGED, RDMA_HOST_STAGED, BOUNCE, IPOIB_TCP, TCP, HOST_SHM, HOST, PEER_GPU_D2H -> true;
            case LOCAL, NVLINK, PCIE_P2P, GPUDIRECT_RDMA, RDMA, GDS -> false;
        };
    }
}
