package dev.ferry.topology.model;

import static java.util.Objects.requireNonNull;

/**
 * The kernel facts route decisions depend on.
 *
 * @param peerMemory GPU memory registration for RDMA (GPUDirect RDMA)
 * @param nvidiaFs the {@code nvidia_fs} module or an equivalent (e.g. the P2PDMA mode of CUDA 12.8+), which
 *         lets cuFile do true direct I/O instead of compat mode
 * @param iommu whether an IOMMU translates DMA (a risk for peer-to-peer and GPUDirect)
 */
public record KernelFacts(PeerMemory peerMemory, KernelFact nvidiaFs, KernelFact iommu)
{
    public KernelFacts
    {
        requireNonNull(peerMemory, "peerMemory is null");
        requireNonNull(nvidiaFs, "nvidiaFs is null");
        requireNonNull(iommu, "iommu is null");
    }

    /** Nothing known, e.g. for a node described only by a capture. */
    public static KernelFacts unknown(String evidence)
    {
        return new KernelFacts(PeerMemory.unknown(evidence), KernelFact.unknown(evidence), KernelFact.unknown(evidence));
    }

    public KernelFacts withPeerMemory(PeerMemory peerMemory)
    {
        return new KernelFacts(peerMemory, nvidiaFs, iommu);
    }

    public KernelFacts withNvidiaFs(KernelFact nvidiaFs)
    {
        return new KernelFacts(peerMemory, nvidiaFs, iommu);
    }

    public KernelFacts withIommu(KernelFact iommu)
    {
        return new KernelFacts(peerMemory, nvidiaFs, iommu);
    }
}
