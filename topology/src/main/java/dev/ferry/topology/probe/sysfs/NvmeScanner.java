package dev.ferry.topology.probe.sysfs;

import dev.ferry.topology.model.NvmeDrive;
import dev.ferry.topology.model.PciAddress;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * Lists NVMe controllers ({@code /sys/class/nvme/nvmeX}) and their namespaces ({@code /sys/block/nvmeXnY}).
 * <p>
 * Without native multipath a namespace's block device sits below its controller
 * ({@code .../nvme/nvme0/nvme0n1}). With it, the block device sits below a subsystem
 * ({@code /sys/devices/virtual/nvme-subsystem/nvme-subsys0/nvme0n1}) and belongs to every controller
 * the subsystem links to, so the controller is always found by going through the subsystem.
 */
public final class NvmeScanner
{
    private static final Pattern CONTROLLER = Pattern.compile("nvme[0-9]+");
    private static final Pattern NAMESPACE = Pattern.compile("nvme[0-9]+n[0-9]+");
    private static final Pattern SUBSYSTEM = Pattern.compile("nvme-subsys[0-9]+");

    private final SysfsReader sysfs;

    public NvmeScanner(SysfsReader sysfs)
    {
        this.sysfs = requireNonNull(sysfs, "sysfs is null");
    }

    public List<NvmeDrive> scan()
    {
        Map<String, List<String>> namespaces = new TreeMap<>();
        Path block = sysfs.path("block");
        for (String name : SysfsReader.list(block)) {
            if (!NAMESPACE.matcher(name).matches()) {
                continue;
            }
            SysfsReader.realPath(block.resolve(name)).ifPresent(resolved -> {
                for (String controller : controllersOf(resolved)) {
                    namespaces.computeIfAbsent(controller, ignored -> new ArrayList<>()).add(name);
                }
            });
        }
        List<NvmeDrive> drives = new ArrayList<>();
        Path controllers = sysfs.path("class/nvme");
        for (String name : SysfsReader.list(controllers)) {
            if (!CONTROLLER.matcher(name).matches()) {
                continue;
            }
            Path entry = controllers.resolve(name);
            Optional<Path> device = SysfsReader.realPath(entry.resolve("device"));
            Optional<PciAddress> pci = device.flatMap(SysfsPaths::lastFunction);
            OptionalInt numaNode = device.map(path -> SysfsReader.readInt(path.resolve("numa_node"))).orElse(OptionalInt.empty());
            if (numaNode.isPresent() && numaNode.getAsInt() < 0) {
                numaNode = OptionalInt.empty();
            }
            String transport = SysfsReader.read(entry.resolve("transport")).orElse("unknown");
            drives.add(new NvmeDrive(name, pci, transport, namespaces.getOrDefault(name, List.of()), numaNode));
        }
        return List.copyOf(drives);
    }

    /**
     * The controllers of a resolved namespace (or partition) directory: its parent controller, or every
     * controller linked from its subsystem. Empty when the path is not an NVMe namespace.
     */
    public static List<String> controllersOf(Path resolvedBlockDirectory)
    {
        Path namespace = resolvedBlockDirectory;
        if (!NAMESPACE.matcher(fileName(namespace)).matches() && namespace.getParent() != null) {
            // A partition: nvme0n1p2 sits inside nvme0n1
            namespace = namespace.getParent();
        }
        if (!NAMESPACE.matcher(fileName(namespace)).matches() || namespace.getParent() == null) {
            return List.of();
        }
        Path parent = namespace.getParent();
        String parentName = fileName(parent);
        if (CONTROLLER.matcher(parentName).matches()) {
            return List.of(parentName);
        }
        if (SUBSYSTEM.matcher(parentName).matches()) {
            return SysfsReader.list(parent).stream().filter(name -> CONTROLLER.matcher(name).matches()).toList();
        }
        return List.of();
    }

    private static String fileName(Path path)
    {
        Path name = path.getFileName();
        return name == null ? "" : name.toString();
    }
}
