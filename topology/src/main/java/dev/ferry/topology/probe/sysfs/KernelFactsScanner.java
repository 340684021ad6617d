package dev.ferry.topology.probe.sysfs;

import dev.ferry.topology.model.KernelFact;
import dev.ferry.topology.model.KernelFacts;
import dev.ferry.topology.model.PeerMemory;
import dev.ferry.topology.model.Presence;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Reads the kernel facts GPUDirect depends on, the way NCCL's IB plugin and UCX look for them.
 * <ul>
 * <li>Peer memory, first match wins: {@code /sys/module/nvidia_peermem} (the driver's module since
 *     470), {@code /sys/module/nv_peer_mem} (Mellanox's legacy module), then the MLNX_OFED peer-memory
 *     client {@code /sys/kernel/mm/memory_peers/nv_mem/version} or {@code nv_mem_nc/version}.
 *     DMA-BUF needs an {@code ibv_reg_dmabuf_mr} probe that sysfs cannot answer, so it is only
 *     mentioned in the evidence.</li>
 * <li>{@code nvidia_fs}: {@code /sys/module/nvidia_fs}. The P2PDMA mode of CUDA 12.8+ needs no module
 *     and is not visible here.</li>
 * <li>IOMMU: translating when {@code /sys/kernel/iommu_groups} has groups, unless every group's
 *     {@code type} is {@code identity} (booted with {@code iommu=pt}), which does not translate DMA.</li>
 * </ul>
 */
public final class KernelFactsScanner
{
    private final SysfsReader sysfs;

    public KernelFactsScanner(SysfsReader sysfs)
    {
        this.sysfs = requireNonNull(sysfs, "sysfs is null");
    }

    public KernelFacts scan()
    {
        return new KernelFacts(peerMemory(), nvidiaFs(), iommu());
    }

    /** The NVIDIA kernel driver's version ({@code /sys/module/nvidia/version}), when loaded. */
    public Optional<String> nvidiaDriverVersion()
    {
        return SysfsReader.read(sysfs.path("module/nvidia/version"));
    }

    public PeerMemory peerMemory()
    {
        Path peermem = sysfs.path("module/nvidia_peermem");
        if (SysfsReader.exists(peermem)) {
            return PeerMemory.present("nvidia_peermem", describeModule(peermem));
        }
        Path legacy = sysfs.path("module/nv_peer_mem");
        if (SysfsReader.exists(legacy)) {
            return PeerMemory.present("nv_peer_mem", describeModule(legacy));
        }
        for (String client : List.of("nv_mem", "nv_mem_nc")) {
            Path version = sysfs.path("kernel/mm/memory_peers/" + client + "/version");
            if (SysfsReader.exists(version)) {
                return PeerMemory.present("memory_peers/nv_mem", display(version) + " = " + SysfsReader.read(version).orElse("(empty)"));
            }
        }
        return PeerMemory.absent("nvidia_peermem not loaded: no " + display(peermem) + ", " + display(legacy) + " or "
                + display(sysfs.path("kernel/mm/memory_peers/nv_mem")) + "{,_nc}/version (DMA-BUF registration not probed)");
    }

    public KernelFact nvidiaFs()
    {
        Path module = sysfs.path("module/nvidia_fs");
        if (SysfsReader.exists(module)) {
            return new KernelFact(Presence.PRESENT, describeModule(module));
        }
        return new KernelFact(Presence.ABSENT, "nvidia_fs not loaded: no " + display(module)
                + " (the P2PDMA mode of CUDA 12.8+ is not visible in sysfs)");
    }

    public KernelFact iommu()
    {
        Path groups = sysfs.path("kernel/iommu_groups");
        List<String> names = SysfsReader.list(groups);
        if (names.isEmpty()) {
            return new KernelFact(Presence.ABSENT, SysfsReader.exists(groups)
                    ? display(groups) + " is empty: no IOMMU translation"
                    : "no " + display(groups) + ": no IOMMU");
        }
        long identity = names.stream()
                .map(name -> SysfsReader.read(groups.resolve(name).resolve("type")).orElse(""))
                .filter(type -> type.equals("identity"))
                .count();
        if (identity == names.size()) {
            return new KernelFact(Presence.ABSENT, names.size() + " IOMMU groups, all of type identity (iommu=pt): DMA is not translated");
        }
        return new KernelFact(Presence.PRESENT, names.size() + " IOMMU groups in " + display(groups)
                + (identity > 0 ? " (" + identity + " passthrough)" : ""));
    }

    private String describeModule(Path module)
    {
        return display(module) + SysfsReader.read(module.resolve("version")).map(version -> "/version = " + version).orElse(" exists");
    }

    private static String display(Path path)
    {
        return path.toString();
    }
}
