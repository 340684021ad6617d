package dev.ferry.topology;

import dev.ferry.conf.ConfigKey;
import dev.ferry.conf.ConfigKeySet;
import dev.ferry.topology.model.PathClass;

import java.util.List;

/**
 * Every threshold and constant of the route policy. Defaults are NCCL's (src/graph/topo.h, paths.cc),
 * so a Ferry decision and an NCCL decision on the same machine agree unless a user says otherwise.
 */
public final class TopologyConfigKeys
        implements ConfigKeySet
{
    public static final ConfigKey<PathClass> P2P_LEVEL = ConfigKey.choice("spark.ferry.route.p2pLevel", PathClass.class, PathClass.PXB,
            "Farthest PCIe path class (self, nvlink, pix, pxb, phb, node, sys) over which two GPUs of one node use "
                    + "peer-to-peer copies; farther pairs stage through host memory. NODE counts as PHB, as in NCCL_P2P_LEVEL. "
                    + "'self' disables peer access, NVLink included.");
    public static final ConfigKey<PathClass> GDR_LEVEL = ConfigKey.choice("spark.ferry.route.gdrLevel", PathClass.class, PathClass.PXB,
            "Farthest path class between a GPU and an RDMA NIC for GPUDirect RDMA (as NCCL_NET_GDR_LEVEL); farther pairs "
                    + "stage through host memory.");
    public static final ConfigKey<PathClass> GDS_LEVEL = ConfigKey.choice("spark.ferry.route.gdsLevel", PathClass.class, PathClass.PXB,
            "Farthest path class between a GPU and an NVMe drive for GPUDirect Storage; farther reads use a bounce buffer.");
    public static final ConfigKey<String> GDS_FILESYSTEMS = ConfigKey.string("spark.ferry.route.gdsFilesystems", "ext4,xfs",
            "Filesystems cuFile can read directly (ext4 only with data=ordered), comma-separated. Network and FUSE "
                    + "filesystems are never read directly, whatever this lists.");

    public static final ConfigKey<Double> NVLINK_SM60_GBPS = ConfigKey.decimal("spark.ferry.topology.nvlinkBandwidth.sm60", 18.0,
            "GB/s per NVLink, Pascal (NCCL SM60_NVLINK_BW).");
    public static final ConfigKey<Double> NVLINK_SM70_GBPS = ConfigKey.decimal("spark.ferry.topology.nvlinkBandwidth.sm70", 20.0,
            "GB/s per NVLink, Volta (NCCL SM70_NVLINK_BW).");
    public static final ConfigKey<Double> NVLINK_SM80_GBPS = ConfigKey.decimal("spark.ferry.topology.nvlinkBandwidth.sm80", 20.0,
            "GB/s per NVLink, Ampere A100 (NCCL SM80_NVLINK_BW).");
    public static final ConfigKey<Double> NVLINK_SM86_GBPS = ConfigKey.decimal("spark.ferry.topology.nvlinkBandwidth.sm86", 12.0,
            "GB/s per NVLink, GA10x NVLink bridge (NCCL SM86_NVLINK_BW).");
    public static final ConfigKey<Double> NVLINK_SM90_GBPS = ConfigKey.decimal("spark.ferry.topology.nvlinkBandwidth.sm90", 20.6,
            "GB/s per NVLink, Hopper (NCCL SM90_NVLINK_BW).");
    public static final ConfigKey<Double> NVLINK_SM100_GBPS = ConfigKey.decimal("spark.ferry.topology.nvlinkBandwidth.sm100", 40.1,
            "GB/s per NVLink, Blackwell and later (NCCL SM100_NVLINK_BW).");
    public static final ConfigKey<Double> NVLINK_UNKNOWN_GBPS = ConfigKey.decimal("spark.ferry.topology.nvlinkBandwidth.unknown", 20.0,
            "GB/s per NVLink when the compute capability is unknown (NCCL falls back to SM80). The NV# count of a "
                    + "capture does not tell the generation, so it is not guessed from it.");
    public static final ConfigKey<Double> PCIE_UNKNOWN_GBPS = ConfigKey.decimal("spark.ferry.topology.pcieBandwidth.unknown", 12.0,
            "GB/s assumed for a PCIe path whose generation and width are unknown (NCCL PCI_BW, Gen3 x16).");
    public static final ConfigKey<String> INTER_SOCKET_GBPS = ConfigKey.string("spark.ferry.topology.interSocketBandwidth", "auto",
            "GB/s across the inter-socket link (QPI/UPI/xGMI) for SYS paths; 'auto' uses NCCL's table by CPU vendor and "
                    + "model, or spark.ferry.topology.interSocketBandwidth.unknown when the CPU is unknown.");
    public static final ConfigKey<Double> INTER_SOCKET_UNKNOWN_GBPS = ConfigKey.decimal("spark.ferry.topology.interSocketBandwidth.unknown", 10.0,
            "GB/s across the inter-socket link when the CPU is unknown (NCCL SKL_QPI_BW).");
    public static final ConfigKey<Double> NIC_UNKNOWN_GBPS = ConfigKey.decimal("spark.ferry.topology.nicBandwidth.unknown", 12.0,
            "GB/s assumed for an RDMA NIC whose rate is unknown (NCCL NET_BW, 100 Gb/s).");
    public static final ConfigKey<Double> TCP_UNKNOWN_GBPS = ConfigKey.decimal("spark.ferry.topology.tcpBandwidth.unknown", 1.25,
            "GB/s assumed for TCP when no interface speed is known (10 Gb/s).");

    private static final List<ConfigKey<?>> KEYS = List.of(
            P2P_LEVEL,
            GDR_LEVEL,
            GDS_LEVEL,
            GDS_FILESYSTEMS,
            NVLINK_SM60_GBPS,
            NVLINK_SM70_GBPS,
            NVLINK_SM80_GBPS,
            NVLINK_SM86_GBPS,
            NVLINK_SM90_GBPS,
            NVLINK_SM100_GBPS,
            NVLINK_UNKNOWN_GBPS,
            PCIE_UNKNOWN_GBPS,
            INTER_SOCKET_GBPS,
            INTER_SOCKET_UNKNOWN_GBPS,
            NIC_UNKNOWN_GBPS,
            TCP_UNKNOWN_GBPS);

    @Override
    public String section()
    {
        return "Topology and routes";
    }

    @Override
    public List<ConfigKey<?>> keys()
    {
        return KEYS;
    }
}
