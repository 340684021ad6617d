package dev.ferry.device;

import dev.ferry.topology.model.PathClass;

/**
 * The bus a peer copy between two GPUs crosses, as the node's topology relates the pair (the
 * backend does not know it: CUDA picks NVLink when the pair has it). Peer-copy bytes are counted
 * per link ({@link DeviceRuntime#peerBytesCopied}).
 */
public enum PeerLink
{
    /** NVLink, direct or through NVSwitch. */
    NVLINK,
    /** PCIe peer-to-peer through switches or the host bridge; no host memory is written. */
    PCIE_P2P;

    /** The link of a pair whose in-node path class is {@code path}: NVLink for {@code NV#}, PCIe P2P for the rest. */
    public static PeerLink of(PathClass path)
    {
        return path == PathClass.NVLINK ? NVLINK : PCIE_P2P;
    }
}
