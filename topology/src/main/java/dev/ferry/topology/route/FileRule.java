package dev.ferry.topology.route;

import dev.ferry.topology.TopologyConfigKeys;
import dev.ferry.topology.model.BlockDevice;
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
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * A file read, decided from where its consumer wants the bytes ({@link FileConsumer}) and the
 * placement: for a device consumer, GPUDirect Storage when cuFile can do true direct I/O, otherwise a
 * pinned bounce buffer; for a CPU consumer, or with no GPU, plain host I/O. Ferry decodes on the
 * CPU, so a GPU route for a CPU consumer would carry the raw bytes up into GPU memory and straight
 * back down: two PCIe crossings for nothing. The one place that judges a {@link FilePlacement}:
 * <ul>
 * <li>the GPU side: {@code nvidia_fs} (else cuFile runs in compat mode), and an NVMe controller within
 *     {@code spark.ferry.route.gdsLevel} of the GPU;</li>
 * <li>the storage side: a filesystem cuFile reads directly ({@code spark.ferry.route.gdsFilesystems}, ext4
 *     only with {@code data=ordered}, the default when no {@code data=} option shows), sitting directly on a
 *     local PCIe NVMe namespace or partition: no device-mapper (LVM, dm-crypt), md RAID, loop or other
 *     stacked device in between. Network and FUSE filesystems (NFS, Lustre, GPFS, BeeGFS, WekaFS) have GDS
 *     paths of their own that Ferry does not use.</li>
 * </ul>
 */
final class FileRule
{
    private static final String RULE_GDS = "GPU-file: cuFile direct I/O possible";
    private static final String RULE_BOUNCE = "GPU-file: cuFile direct I/O not possible, bounce through pinned host memory";
    private static final String RULE_HOST = "file: no GPU destination";
    private static final String RULE_CPU = "file: CPU consumer, host I/O (a GPU route would cost two PCIe crossings, H->D then D->H)";
    private static final Set<String> NETWORK_FILESYSTEMS = Set.of(
            "nfs", "nfs4", "cifs", "smb3", "smbfs", "lustre", "gpfs", "beegfs", "wekafs", "ceph", "glusterfs", "9p", "virtiofs", "afs");

    private final RoutePolicyConfig config;
    private final BandwidthModel bandwidths;

    FileRule(RoutePolicyConfig config, BandwidthModel bandwidths)
    {
        this.config = requireNonNull(config, "config is null");
        this.bandwidths = requireNonNull(bandwidths, "bandwidths is null");
    }

    RouteDecision decide(NodeTopology node, Optional<String> gpu, FilePlacement placement, FileConsumer consumer)
    {
        requireNonNull(consumer, "consumer is null");
        if (consumer == FileConsumer.CPU && gpu.isPresent()) {
            return forCpuConsumer(node, gpu.get(), placement);
        }
        String assumed = "; assumed a " + consumer.describe();
        String threshold = config.gdsLevel().describe() + ", " + config.gdsFilesystems().describe();
        String target = placement.path();
        List<String> notes = new ArrayList<>();
        List<String> storage = storageObstacles(placement, notes);
        if (gpu.isEmpty()) {
            Bandwidth host = bandwidths.assumedPcie("drive throughput not modelled");
            storage.forEach(obstacle -> notes.add("GDS would be ruled out with a GPU too: " + obstacle));
            return new RouteDecision("host", target, Route.HOST, Optional.empty(), "-", host.gbps(), host.source(), RULE_HOST, threshold,
                    Optional.empty(), List.of(), notes, target + ": no GPU involved, plain host I/O"
                            + (storage.isEmpty() ? "" : " (GDS would be ruled out anyway: " + String.join("; ", storage) + ")") + assumed);
        }
        String gpuName = gpu.get();
        if (node.gpu(gpuName).isEmpty()) {
            throw new IllegalArgumentException("Node " + node.hostname() + " has no GPU " + gpuName);
        }
        List<String> vetoes = new ArrayList<>();
        checkDriver(node.kernelFacts().nvidiaFs(), vetoes);
        vetoes.addAll(storage);
        Optional<Relation> relation = placement.nvmeController().flatMap(controller -> node.relation(gpuName, controller));
        checkPlacement(node, gpuName, placement, relation, vetoes);
        if (node.kernelFacts().iommu().presence() == Presence.PRESENT) {
            notes.add("IOMMU is on (" + node.kernelFacts().iommu().evidence() + "): GDS recommends iommu=off or iommu=pt");
        }
        Optional<PathClass> pathClass = relation.map(Relation::pathClass);
        String path = relation.map(Relation::cell).orElse("?");
        Optional<String> pathDetail = relation.map(Relation::describe);
        if (vetoes.isEmpty()) {
            Bandwidth direct = bandwidths.pcie(relation);
            return new RouteDecision(gpuName, target, Route.GDS, pathClass, path, pathDetail, direct.gbps(), direct.source(), RULE_GDS, threshold,
                    Optional.of(new RunnerUp(Route.BOUNCE, "direct DMA from " + placement.nvmeController().get() + " skips the bounce buffer")),
                    vetoes, notes, gpuName + " <- " + target + ": " + placement.filesystemType() + " directly on "
                            + String.join(" -> ", placement.backingDevices()) + ", " + path + " within " + config.gdsLevel().value().name()
                            + ", GPUDirect Storage at " + Bandwidth.format(direct.gbps()) + " GB/s" + assumed);
        }
        Bandwidth bounce = pathClass.isPresent()
                ? bandwidths.pciePath(pathClass.get(), relation, node.cpu())
                : bandwidths.assumedPcie("distance between " + gpuName + " and the drive unknown");
        String whyNot = String.join("; ", vetoes);
        return new RouteDecision(gpuName, target, Route.BOUNCE, pathClass, path, pathDetail, bounce.gbps(), bounce.source(), RULE_BOUNCE, threshold,
                Optional.of(new RunnerUp(Route.GDS, whyNot)), vetoes, notes,
                gpuName + " <- " + target + ": GDS ruled out (" + whyNot + "); read into a pinned host buffer, then copied" + assumed);
    }

    /**
     * A CPU consumer on a node with a GPU: host I/O, with what a device consumer on {@code gpu} would get as the
     * runner-up (when the topology knows that GPU), so the report shows what was given up and why.
     */
    private RouteDecision forCpuConsumer(NodeTopology node, String gpu, FilePlacement placement)
    {
        String target = placement.path();
        Bandwidth host = bandwidths.assumedPcie("drive throughput not modelled");
        String threshold = config.gdsLevel().describe() + ", " + config.gdsFilesystems().describe();
        List<String> notes = new ArrayList<>();
        Optional<RunnerUp> runnerUp = Optional.empty();
        String forDevice;
        if (node.gpu(gpu).isPresent()) {
            RouteDecision device = decide(node, Optional.of(gpu), placement, FileConsumer.DEVICE);
            runnerUp = Optional.of(new RunnerUp(device.route(), "the consumer decodes on the host: " + device.route()
                    + " would carry the raw bytes up into " + gpu + " and straight back down (two PCIe crossings, nothing gained)"));
            forDevice = "; a device consumer on " + gpu + " would read on " + device.route();
        }
        else {
            notes.add(gpu + " is not in " + node.hostname() + "'s topology; only the host route was considered");
            forDevice = "";
        }
        return new RouteDecision("host", target, Route.HOST, Optional.empty(), "-", host.gbps(), host.source(), RULE_CPU, threshold,
                runnerUp, List.of(), notes, target + ": assumed a " + FileConsumer.CPU.describe() + ": plain host I/O, no PCIe crossing" + forDevice);
    }

    /** What about the filesystem, its mount options and the block devices rules out cuFile direct I/O; empty when nothing does. */
    List<String> storageObstacles(FilePlacement placement)
    {
        return storageObstacles(placement, new ArrayList<>());
    }

    private List<String> storageObstacles(FilePlacement placement, List<String> notes)
    {
        List<String> obstacles = new ArrayList<>();
        String type = placement.filesystemType().toLowerCase(Locale.ROOT);
        String where = placement.filesystemType() + " on " + placement.mountPoint();
        List<String> allowed = config.gdsFilesystemTypes();
        if (NETWORK_FILESYSTEMS.contains(type) || type.startsWith("nfs") || type.startsWith("fuse")) {
            obstacles.add("network or FUSE filesystem " + where + ": Ferry uses GDS only for local filesystems ("
                    + describe(allowed) + ") on NVMe");
            return obstacles;
        }
        if (!allowed.contains(type)) {
            obstacles.add("filesystem " + where + " is not " + describe(allowed));
        }
        if (type.equals("ext4")) {
            Optional<String> data = placement.mountOption("data");
            if (data.isEmpty()) {
                notes.add("ext4 without a data= option: the default, data=ordered, assumed");
            }
            else if (!data.get().equals("ordered")) {
                obstacles.add("ext4 mounted data=" + data.get() + "; cuFile needs data=ordered");
            }
        }
        if (placement.device().isEmpty()) {
            obstacles.add("no block device behind " + placement.mountPoint() + " ("
                    + placement.deviceNumber().map(number -> "device " + number + ", ").orElse("") + "source " + placement.mountSource() + ")");
            return obstacles;
        }
        for (BlockDevice layer : placement.device().get().stack()) {
            blockDeviceObstacle(layer).ifPresent(obstacles::add);
        }
        return obstacles;
    }

    private static Optional<String> blockDeviceObstacle(BlockDevice layer)
    {
        switch (layer.kind()) {
            case DEVICE_MAPPER:
                return Optional.of("on " + layer.name() + layer.detail().map(name -> " (" + name + ")").orElse("")
                        + ": device-mapper (LVM, dm-crypt or multipath), not directly on NVMe");
            case MD_RAID:
                return Optional.of("on " + layer.name() + ": md software RAID, not directly on NVMe");
            case LOOP:
                return Optional.of("on " + layer.name() + layer.detail().map(file -> " (backed by " + file + ")").orElse("")
                        + ": loop device, not directly on NVMe");
            case OTHER_DISK:
                if (layer.slaves().isEmpty()) {
                    return Optional.of("on " + layer.name() + ", which is not an NVMe namespace");
                }
                return Optional.of("on " + layer.name() + ": stacked on " + String.join(", ", layer.slaves().stream().map(BlockDevice::name).toList())
                        + ", not directly on NVMe");
            case NVME_NAMESPACE:
            case NVME_PARTITION:
                return layer.transport()
                        .filter(transport -> !transport.equals("pcie"))
                        .map(transport -> "on " + layer.name() + " through " + String.join("/", layer.nvmeControllers()) + " with transport " + transport
                                + ": not a local PCIe NVMe drive");
        }
        throw new IllegalStateException("Unhandled block device kind " + layer.kind());
    }

    private static String describe(List<String> filesystems)
    {
        if (filesystems.isEmpty()) {
            return "a filesystem " + TopologyConfigKeys.GDS_FILESYSTEMS.name() + " allows (it lists none)";
        }
        if (filesystems.size() == 1) {
            return filesystems.get(0);
        }
        return String.join(", ", filesystems.subList(0, filesystems.size() - 1)) + " or " + filesystems.get(filesystems.size() - 1);
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

    private void checkPlacement(NodeTopology node, String gpu, FilePlacement placement, Optional<Relation> relation, List<String> vetoes)
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
        // The block stack judged the transport when it knew it; a placement stated by name leaves it to the node's drive
        boolean transportJudged = placement.device().stream().flatMap(device -> device.stack().stream()).anyMatch(layer -> layer.transport().isPresent());
        if (!transportJudged && !drive.get().transport().equalsIgnoreCase("pcie")) {
            vetoes.add(controller + " uses transport " + drive.get().transport() + ": not a local PCIe NVMe drive");
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
