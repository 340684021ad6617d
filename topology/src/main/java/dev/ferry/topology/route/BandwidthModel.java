package dev.ferry.topology.route;

import dev.ferry.topology.model.CpuInfo;
import dev.ferry.topology.model.Gpu;
import dev.ferry.topology.model.Nic;
import dev.ferry.topology.model.PathClass;
import dev.ferry.topology.model.PcieLink;
import dev.ferry.topology.model.Relation;

import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;

import static java.util.Objects.requireNonNull;

/**
 * NCCL-style bandwidth estimates (src/graph/topo.h), each with its source spelled out, so a user can
 * tell a measured link from an assumption.
 */
final class BandwidthModel
{
    // NCCL's PCIe factors: GB/s = width x code / 80 for 2.5, 5, 8, 16, 32 and 64 GT/s
    private static final int[] PCIE_GEN_CODES = {0, 15, 30, 60, 120, 240, 480};

    private final RoutePolicyConfig config;

    BandwidthModel(RoutePolicyConfig config)
    {
        this.config = requireNonNull(config, "config is null");
    }

    /** {@code count} NVLinks between two GPUs (or a GPU and the NVSwitches), per-link bandwidth by the older GPU. */
    Bandwidth nvlink(Optional<Gpu> a, Optional<Gpu> b, int count)
    {
        OptionalInt sm = olderSm(a, b);
        if (sm.isEmpty()) {
            double perLink = config.nvlinkUnknown().value();
            return new Bandwidth(perLink * count, String.format(Locale.ROOT,
                    "NCCL fallback (SM80) NVLink %s GB/s x %d links: compute capability unknown, NVLink generation not guessed from NV%d",
                    Bandwidth.format(perLink), count, count));
        }
        Setting<Double> perLink = perLinkSetting(sm.getAsInt());
        String origin = perLink.explicit() ? perLink.key().name() : "NCCL";
        return new Bandwidth(perLink.value() * count, String.format(Locale.ROOT, "%s %s NVLink %s GB/s x %d links",
                origin, generation(sm.getAsInt()), Bandwidth.format(perLink.value()), count));
    }

    /** The PCIe part of a path: the relation's bottleneck link when known, else NCCL's Gen3 x16 reference. */
    Bandwidth pcie(Optional<Relation> relation)
    {
        Optional<PcieLink> link = relation.flatMap(Relation::bottleneck).filter(PcieLink::isKnown);
        if (link.isPresent()) {
            double gbps = link.get().width() * PCIE_GEN_CODES[link.get().gen()] / 80.0;
            return new Bandwidth(gbps, String.format(Locale.ROOT, "PCIe Gen%d x%d = %s GB/s (%s)",
                    link.get().gen(), link.get().width(), Bandwidth.format(gbps), relation.get().source()));
        }
        return assumedPcie(relation.map(known -> "link unknown in " + known.source()).orElse("no relation known"));
    }

    /** NCCL's PCIe reference (Gen3 x16, 12 GB/s) or its configured replacement, saying why it is assumed. */
    Bandwidth assumedPcie(String why)
    {
        double assumed = config.pcieUnknown().value();
        return new Bandwidth(assumed, String.format(Locale.ROOT, "assumed Gen3 x16 %s GB/s: %s", Bandwidth.format(assumed), why));
    }

    /** A PCIe path, narrowed by the inter-socket link when it crosses sockets. */
    Bandwidth pciePath(PathClass pathClass, Optional<Relation> relation, Optional<CpuInfo> cpu)
    {
        Bandwidth pcie = pcie(relation);
        return pathClass == PathClass.SYS ? pcie.min(interSocket(cpu)) : pcie;
    }

    /** The inter-socket link (QPI/UPI/xGMI), by CPU vendor and model as in NCCL. */
    Bandwidth interSocket(Optional<CpuInfo> cpu)
    {
        OptionalDouble fixed = config.fixedInterSocketGbps();
        if (fixed.isPresent()) {
            return new Bandwidth(fixed.getAsDouble(), config.interSocket().key().name() + "=" + Bandwidth.format(fixed.getAsDouble()) + " GB/s inter-socket");
        }
        if (cpu.isEmpty() || (cpu.get().vendor().isEmpty() && cpu.get().arch().isEmpty())) {
            double assumed = config.interSocketUnknown().value();
            return new Bandwidth(assumed, "assumed inter-socket " + Bandwidth.format(assumed) + " GB/s: CPU unknown");
        }
        CpuInfo info = cpu.get();
        String arch = info.arch().toLowerCase(Locale.ROOT);
        if (arch.startsWith("ppc64")) {
            return new Bandwidth(32.0, "NCCL P9_BW 32 GB/s (POWER inter-socket)");
        }
        if (arch.startsWith("aarch64") || arch.startsWith("arm")) {
            return new Bandwidth(6.0, "NCCL ARM_BW 6 GB/s (ARM inter-socket)");
        }
        switch (info.vendor().trim()) {
            case "GenuineIntel":
                return intel(info);
            case "AuthenticAMD":
                return new Bandwidth(16.0, "NCCL AMD_BW 16 GB/s (AMD Infinity Fabric)");
            case "CentaurHauls":
            case "Shanghai":
                return new Bandwidth(6.0, "NCCL ZPI_BW 6 GB/s (Zhaoxin)");
            default:
                double assumed = config.interSocketUnknown().value();
                return new Bandwidth(assumed, "assumed inter-socket " + Bandwidth.format(assumed) + " GB/s: CPU vendor '" + info.vendor() + "' not in NCCL's table");
        }
    }

    /** An RDMA NIC: its best active port rate / 8. */
    Bandwidth nic(Nic nic)
    {
        double rate = nic.activeRateGbps();
        if (rate > 0) {
            return new Bandwidth(rate / 8, String.format(Locale.ROOT, "%s %s Gb/s / 8 = %s GB/s", nic.name(),
                    Bandwidth.format(rate), Bandwidth.format(rate / 8)));
        }
        double assumed = config.nicUnknown().value();
        return new Bandwidth(assumed, String.format(Locale.ROOT, "assumed %s GB/s (NCCL NET_BW, 100 Gb/s): rate of %s unknown",
                Bandwidth.format(assumed), nic.name()));
    }

    /** A TCP connection over interfaces of {@code speedMbps} (0 or less when unknown). */
    Bandwidth tcp(long speedMbps, String what)
    {
        if (speedMbps > 0) {
            double gbps = speedMbps / 8000.0;
            return new Bandwidth(gbps, String.format(Locale.ROOT, "%s %d Mb/s / 8000 = %s GB/s (protocol overhead not modelled)",
                    what, speedMbps, Bandwidth.format(gbps)));
        }
        double assumed = config.tcpUnknown().value();
        return new Bandwidth(assumed, "assumed " + Bandwidth.format(assumed) + " GB/s: interface speed unknown");
    }

    private Bandwidth intel(CpuInfo info)
    {
        if (info.family().isEmpty() || info.model().isEmpty() || info.family().getAsInt() != 6) {
            return new Bandwidth(10.0, "NCCL SKL_QPI_BW 10 GB/s (Intel, model unknown)");
        }
        int model = info.model().getAsInt();
        if (model >= 0xCF) {
            return new Bandwidth(40.0, "NCCL ERP_QPI_BW 40 GB/s (Intel Emerald Rapids or later)");
        }
        if (model >= 0x8F) {
            return new Bandwidth(22.0, "NCCL SRP_QPI_BW 22 GB/s (Intel Sapphire Rapids)");
        }
        if (model >= 0x55) {
            return new Bandwidth(10.0, "NCCL SKL_QPI_BW 10 GB/s (Intel Skylake)");
        }
        return new Bandwidth(6.0, "NCCL BDW_QPI_BW 6 GB/s (Intel Broadwell)");
    }

    private static OptionalInt olderSm(Optional<Gpu> a, Optional<Gpu> b)
    {
        OptionalInt smA = a.map(Gpu::smVersion).orElse(OptionalInt.empty());
        OptionalInt smB = b.map(Gpu::smVersion).orElse(OptionalInt.empty());
        if (smA.isPresent() && smB.isPresent()) {
            return OptionalInt.of(Math.min(smA.getAsInt(), smB.getAsInt()));
        }
        return smA.isPresent() ? smA : smB;
    }

    // Same cut-offs as NCCL's ncclTopoNVLinkBw
    private Setting<Double> perLinkSetting(int sm)
    {
        if (sm >= 100) {
            return config.nvlinkSm100();
        }
        if (sm >= 90) {
            return config.nvlinkSm90();
        }
        if (sm == 86) {
            return config.nvlinkSm86();
        }
        if (sm >= 80) {
            return config.nvlinkSm80();
        }
        if (sm >= 70) {
            return config.nvlinkSm70();
        }
        if (sm >= 60) {
            return config.nvlinkSm60();
        }
        return config.nvlinkSm80();
    }

    private static String generation(int sm)
    {
        if (sm >= 100) {
            return "SM100";
        }
        if (sm >= 90) {
            return "SM90";
        }
        if (sm == 86) {
            return "SM86";
        }
        if (sm >= 80) {
            return "SM80";
        }
        if (sm >= 70) {
            return "SM70";
        }
        if (sm >= 60) {
            return "SM60";
        }
        return "SM" + sm + " (SM80 figure)";
    }
}
