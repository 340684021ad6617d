package dev.ferry.topology.route;

/**
 * How a block moves between two places, named for the bus it crosses. Names are part of the CLI
 * and JSON contract.
 *
 * <p>{@link #NVLINK} and {@link #PCIE_P2P} mean a peer copy into the reader's GPU (for a consumer
 * that wants the block in GPU memory): on {@code cuda}, {@code cudaMemcpyPeerAsync} or an async copy
 * from the exporter's IPC mapping opened on the reader's context, with peer access enabled once per
 * pair. A block read out of another executor's GPU into the reader's host memory (what Spark's CPU
 * reduce side does) is {@link #PEER_GPU_D2H}: it crosses no NVLink and no peer link, only the
 * exporter GPU's own PCIe link, once.
 */
public enum Route
{
    /** Source and destination are the same device. */
    LOCAL,
    /** A peer copy into the reader's GPU over NVLink, direct or through NVSwitch. */
    NVLINK,
    /** A peer copy into the reader's GPU over PCIe peer-to-peer (switches or the host bridge; no host memory). */
    PCIE_P2P,
    /**
     * Another executor's GPU-resident block copied into this executor's host memory: the exporter
     * GPU's device-to-host copy over that GPU's own PCIe link (the reader maps the block over IPC on
     * its own context). One PCIe crossing, no peer link; the route for a CPU consumer.
     */
    PEER_GPU_D2H,
    /** GPU to GPU through host memory on the GPU's NUMA node. */
    HOST_STAGED,
    /** Host memory shared between processes of one node. */
    HOST_SHM,
    /** The NIC reads and writes GPU memory directly. */
    GPUDIRECT_RDMA,
    /** RDMA from and to a host buffer, copied to and from the GPU. */
    RDMA_HOST_STAGED,
    /** Host memory to host memory over RDMA. */
    RDMA,
    /** TCP over IP over InfiniBand. */
    IPOIB_TCP,
    /** TCP over Ethernet or anything else. */
    TCP,
    /** GPUDirect Storage: NVMe to GPU memory directly. */
    GDS,
    /** File to pinned host buffer, then copied to the GPU. */
    BOUNCE,
    /** File to host memory, no GPU involved. */
    HOST,
}
