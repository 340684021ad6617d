package dev.ferry.topology.route;

/** How a block moves between two places. Names are part of the CLI and JSON contract. */
public enum Route
{
    /** Source and destination are the same device. */
    LOCAL,
    /** GPU to GPU over NVLink, direct or through NVSwitch. */
    NVLINK,
    /** GPU to GPU peer-to-peer over PCIe. */
    PCIE_P2P,
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
