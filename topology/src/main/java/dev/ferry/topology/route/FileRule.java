package dev.ferry.topology.route;

import dev.ferry.topology.model.FilePlacement;
import dev.ferry.topology.model.KernelFact;
import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.model.NvmeDrive;
import dev.ferry.topology.model.PathClass;
import dev.ferry.topology.model.Presence;
import dev.ferry.topology.model.Relation;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * A file read into a GPU: GPUDirect Storage when cuFile can do true direct I/O (driver support, a
 * filesystem it reads directly, straight on an NVMe namespace within the GDS level of the GPU),
 * otherwise a pinned bounce buffer; with no GPU, plain host I/O.
 */
final class FileRule
{
    private static final String RULE_GDS = "GPU-file: cuFile direct I/O possible";
    private static final String RULE_BOUNCE = "GPU-file: cuFile direct I/O not possible, bounce through pinned host memory";
    private static final String RULE_HOST = "file: no GPU destination";
    private static final Pattern NVME_NAMESPACE = Pattern.compile("nvme\\d+(c\\d+)?n\\d+(p\\d+)?");
    private static final Pattern DEVICE_MAPPER = Pattern.compile("dm-\\d+|mapper/.*");
    private static final Pattern SOFTWARE_RAID = Pattern.compile("md\\d+.*");
    private static final Pattern LOOP = Pattern.compile("loop\\d+.*");

    private final RoutePolicyConfig config;
    private final BandwidthModel bandwidths;

    FileRule(RoutePolicyConfig config, BandwidthModel bandwidths)
    {
        this.config = requireNonNull(config, "config is null");
        this.bandwidths = requireNonNull(bandwidths, "bandwidths is null");
    }

    RouteDecision decide(NodeTopology node, Optional<String> gpu, FilePlacement placement)
    {
        String threshold = config.gdsLevel().describe();
        String target = placement.path();
        if (gpu.isEmpty()) {
            Bandwidth host = bandwidths.assumedPcie("drive throughput not modelled");
            return new RouteDecision("host", target, Route.HOST, Optional.empty(), "-", host.gbps(), host.source(), RULE_HOST, threshold,
                    Optional.empty(), List.of(), List.of(), target + ": no GPU involved, plain host I/O");
        }
        String gpuName = gpu.get();
        if (node.gpu(gpuName).isEmpty()) {
            throw new IllegalArgumentException("Node " + node.hostname() + " has no GPU " + gpuName);
        }
        List<String> vetoes = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        checkDriver(node.kernelFacts().nvidiaFs(), vetoes);
        checkFilesystem(placement, vetoes, notes);
        checkBlockDevices(placement, vetoes);
        Optional<Relation> relation = placement.nvmeController().flatMap(controller -> node.relation(gpuName, controller));
        checkPlacement(node, gpuName, placement, relation, vetoes, notes);
        if (node.kernelFacts().iommu().presence() == Presence.PRESENT) {
            notes.add("IOMMU is on (" + node.kernelFacts().iommu().evidence() + "): GDS recommends iommu=off or iommu=pt");
        }
        Optional<PathClass> pathClass = relation.map(Relation::pathClass);
        String path = relation.map(Relation::cell).orElse("?");
        if (vetoes.isEmpty()) {
            Bandwidth direct = bandwidths.pcie(relation);
            return new RouteDecision(gpuName, target, Route.GDS, pathClass, path, direct.gbps(), direct.source(), RULE_GDS, threshold,
                    Optional.of(new RunnerUp(Route.BOUNCE, "direct DMA from " + placement.nvmeController().get() + " skips the bounce buffer")),
                    vetoes, notes, gpuName + " <- " + target + ": " + placement.filesystemType() + " directly on "
                            + String.join(" -> ", placement.backingDevices()) + ", " + path + " within " + config.gdsLevel().value().name()
                            + ", GPUDirect Storage at " + Bandwidth.format(direct.gbps()) + " GB/s");
        }
        Bandwidth bounce = pathClass.isPresent() ? bandwidths.pciePath(pathClass.get(), relation, node.cpu()) : bandwidths.assumedPcie("distance between " + gpuName + " and the drive unknown");
        String whyNot = String.join("; ", vetoes);
        return new RouteDecision(gpuName, target, Route.BOUNCE, pathClass, path, bounce.gbps(), bounce.source(), RULE_BOUNCE, threshold,
                Optional.of(new RunnerUp(Route.GDS, whyNot)), vetoes, notes,
                gpuName + " <- " + target + ": GDS ruled out (" + whyNot + "); read into a pinned host buffer, then copied");
    }

    private static void checkDriver(KernelFact nvidiaFs, List<String> vetoes)
    {
        switch (nvidiaFs.presence()) {
            case PRESENT:
                return;
            case ABSENT:
                vetoes.add("cuFile compat mode only: nvidia_fs (or P2PDMA support) absent: " + nvidiaFs.evidence());
                return;
            case UNKNOWN:
                vetoes.add("cuFile may run in compat mode: nvidia_fs unknown (" + nvidiaFs.evidence() + ")");
                return;
        }
        throw new IllegalStateException("Unhandled presence " + nvidiaFs.presence());
    }

    private void checkFilesystem(FilePlacement placement, List<String> vetoes, List<String> notes)
    {
        String type = placement.filesystemType().toLowerCase(Locale.ROOT);
        if (!config.gdsFilesystemTypes().contains(type)) {
            vetoes.add("filesystem " + placement.filesystemType() + " is not one cuFile reads directly (" + config.gdsFilesystems().describe() + ")");
            return;
        }
        if (type.equals("ext4")) {
            Optional<String> data = placement.mountOption("data");
            if (data.isEmpty()) {
                notes.add("ext4 without a data= option: the default, data=ordered, assumed");
            }
            else if (!data.get().equals("ordered")) {
                vetoes.add("ext4 mounted data=" + data.get() + "; cuFile needs data=ordered");
            }
        }
    }

    private static void checkBlockDevices(FilePlacement placement, List<String> vetoes)
    {
        List<String> chain = placement.backingDevices();
        if (chain.isEmpty()) {
            vetoes.add("no block device behind " + placement.mountPoint());
            return;
        }
        for (String device : chain) {
            String name = device.startsWith("/dev/") ? device.substring("/dev/".length()) : device;
            if (DEVICE_MAPPER.matcher(name).matches()) {
                vetoes.add("on " + device + " (device-mapper: LVM, dm-crypt or multipath), not directly on NVMe");
            }
            else if (SOFTWARE_RAID.matcher(name).matches()) {
                vetoes.add("on " + device + " (md software RAID), not directly on NVMe");
            }
            else if (LOOP.matcher(name).matches()) {
                vetoes.add("on " + device + " (loop device), not directly on NVMe");
            }
        }
        String last = chain.get(chain.size() - 1);
        String lastName = last.startsWith("/dev/") ? last.substring("/dev/".length()) : last;
        if (!NVME_NAMESPACE.matcher(lastName).matches()) {
            vetoes.add("backed by " + last + ", not an NVMe namespace");
        }
        else if (chain.size() > 1 && vetoes.isEmpty()) {
            vetoes.add("stacked block devices " + String.join(" -> ", chain) + ", not directly on NVMe");
        }
    }

    private void checkPlacement(NodeTopology node, String gpu, FilePlacement placement, Optional<Relation> relation, List<String> vetoes, List<String> notes)
    {
        if (placement.nvmeController().isEmpty()) {
            if (vetoes.isEmpty()) {
                vetoes.add("no NVMe controller found behind " + placement.mountPoint());
            }
            return;
        }
        String controller = placement.nvmeController().get();
        Optional<NvmeDrive> drive = node.nvme(controller);
        if (drive.isEmpty()) {
            vetoes.add(controller + " is not in " + node.hostname() + "'s topology, so its distance to " + gpu + " is unknown");
            return;
        }
        if (!drive.get().transport().equalsIgnoreCase("pcie")) {
            notes.add(controller + " uses transport " + drive.get().transport() + " (NVMe-oF); placement judged by its local path only");
        }
        if (relation.isEmpty()) {
            vetoes.add("no relation known between " + gpu + " and " + controller);
            return;
        }
        PathClass pathClass = relation.get().pathClass();
        if (!pathClass.isWithin(config.gdsLevel().value())) {
            vetoes.add("path " + relation.get().cell() + " between " + gpu + " and " + controller + " is beyond " + config.gdsLevel().describe());
        }
    }
}
