package dev.ferry.topology.probe;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * Builds a sysfs tree the way the kernel lays it out: real directories under {@code devices/}, and
 * relative symlinks from {@code bus/pci/devices}, {@code class/*}, {@code block} and {@code dev/block}
 * into them, so the probes resolve paths exactly as on a live machine.
 * <p>
 * PCI functions are placed by their path below {@code devices/}, e.g.
 * {@code pci0000:00/0000:00:01.0/0000:01:00.0}; later calls refer to them by address.
 */
public final class SysfsTreeBuilder
{
    public static final int CLASS_BRIDGE = 0x060400;
    public static final int CLASS_3D_CONTROLLER = 0x030200;
    public static final int CLASS_VGA = 0x030000;
    public static final int CLASS_ETHERNET = 0x020000;
    public static final int CLASS_INFINIBAND = 0x020700;
    public static final int CLASS_NVME = 0x010802;
    public static final int CLASS_NVSWITCH = 0x068000;
    public static final int VENDOR_NVIDIA = 0x10de;
    public static final int VENDOR_MELLANOX = 0x15b3;
    public static final int VENDOR_BROADCOM = 0x1000;
    public static final int VENDOR_INTEL = 0x8086;
    public static final int VENDOR_SAMSUNG = 0x144d;

    private final Path root;
    private final Map<String, Path> functions = new HashMap<>();

    public SysfsTreeBuilder(Path root)
    {
        requireNonNull(root, "root is null");
        mkdirs(root.resolve("bus/pci/devices"));
        // Relative links are computed between real paths, so a symlinked temp directory cannot skew them
        this.root = resolve(root);
    }

    public Path root()
    {
        return root;
    }

    /** A PCI function at {@code devices/<path>}; its address is the last path component. */
    public PciFunction pci(String path, int classCode, int vendor, int device)
    {
        Path directory = root.resolve("devices").resolve(path);
        mkdirs(directory);
        String address = directory.getFileName().toString();
        functions.put(address, directory);
        write(directory.resolve("class"), String.format("0x%06x", classCode));
        write(directory.resolve("vendor"), String.format("0x%04x", vendor));
        write(directory.resolve("device"), String.format("0x%04x", device));
        write(directory.resolve("subsystem_vendor"), String.format("0x%04x", vendor));
        write(directory.resolve("subsystem_device"), "0x0000");
        write(directory.resolve("numa_node"), "-1");
        symlink(root.resolve("bus/pci/devices").resolve(address), directory);
        return new PciFunction(directory);
    }

    /** A bridge port (root port or switch port) with a x16 Gen4 link. */
    public PciFunction bridge(String path, int vendor)
    {
        return pci(path, CLASS_BRIDGE, vendor, 0x1234).link("16.0 GT/s PCIe", 16);
    }

    /** A PCIe switch below {@code parentPath}: its upstream port and one downstream port; returns the downstream port's path. */
    public String switchBelow(String parentPath, String upstream, String downstream)
    {
        bridge(parentPath + "/" + upstream, VENDOR_BROADCOM);
        bridge(parentPath + "/" + upstream + "/" + downstream, VENDOR_BROADCOM);
        return parentPath + "/" + upstream + "/" + downstream;
    }

    public Path function(String address)
    {
        Path directory = functions.get(address);
        if (directory == null) {
            throw new IllegalArgumentException("No PCI function " + address + " in the fixture");
        }
        return directory;
    }

    /** An RDMA device on a PCI function: {@code devices/<pci>/infiniband/<name>} and {@code class/infiniband/<name>}. */
    public RdmaDevice infiniband(String name, String pciAddress, String nodeType)
    {
        Path directory = function(pciAddress).resolve("infiniband").resolve(name);
        mkdirs(directory.resolve("ports"));
        symlink(directory.resolve("device"), function(pciAddress));
        if (nodeType != null) {
            write(directory.resolve("node_type"), nodeType);
        }
        symlink(root.resolve("class/infiniband").resolve(name), directory);
        return new RdmaDevice(directory);
    }

    /** A software RDMA device (rxe, siw) with no PCI function behind it. */
    public RdmaDevice softwareRdma(String name, String nodeType)
    {
        Path directory = root.resolve("devices/virtual/infiniband").resolve(name);
        mkdirs(directory.resolve("ports"));
        write(directory.resolve("node_type"), nodeType);
        symlink(root.resolve("class/infiniband").resolve(name), directory);
        return new RdmaDevice(directory);
    }

    /** A netdev on a PCI function, e.g. {@code ib0} (type 32) or {@code enp1s0f0} (type 1). */
    public void netdev(String name, String pciAddress, int type, String operstate, String speed)
    {
        Path directory = function(pciAddress).resolve("net").resolve(name);
        netdevAt(name, directory, type, operstate, speed);
        symlink(directory.resolve("device"), function(pciAddress));
    }

    /** A virtual interface ({@code lo}, {@code docker0}): no {@code device} link. */
    public void virtualNetdev(String name, int type, String operstate)
    {
        netdevAt(name, root.resolve("devices/virtual/net").resolve(name), type, operstate, null);
    }

    private void netdevAt(String name, Path directory, int type, String operstate, String speed)
    {
        mkdirs(directory);
        write(directory.resolve("type"), String.valueOf(type));
        write(directory.resolve("operstate"), operstate);
        if (speed != null) {
            write(directory.resolve("speed"), speed);
        }
        symlink(root.resolve("class/net").resolve(name), directory);
    }

    /** An NVMe controller on a PCI function: {@code devices/<pci>/nvme/<name>}. */
    public Path nvmeController(String name, String pciAddress, String transport)
    {
        Path directory = function(pciAddress).resolve("nvme").resolve(name);
        mkdirs(directory);
        write(directory.resolve("transport"), transport);
        symlink(directory.resolve("device"), function(pciAddress));
        symlink(root.resolve("class/nvme").resolve(name), directory);
        return directory;
    }

    /** An NVMe-oF controller ({@code tcp}, {@code rdma}): no PCI function, it lives under {@code nvme-fabrics}. */
    public Path fabricsNvmeController(String name, String transport)
    {
        Path directory = root.resolve("devices/virtual/nvme-fabrics/ctl").resolve(name);
        mkdirs(directory);
        write(directory.resolve("transport"), transport);
        symlink(directory.resolve("device"), root.resolve("devices/virtual/nvme-fabrics/ctl"));
        symlink(root.resolve("class/nvme").resolve(name), directory);
        return directory;
    }

    /** A namespace block device below its controller (native multipath off). */
    public Path nvmeNamespace(String controller, String namespace, String majorMinor)
    {
        Path directory = root.resolve("class/nvme").resolve(controller);
        Path real = resolve(directory).resolve(namespace);
        return blockDevice(namespace, real, majorMinor);
    }

    /** A namespace below an NVMe subsystem (native multipath on), reachable from several controllers. */
    public Path multipathNamespace(String subsystem, String namespace, String majorMinor, String... controllers)
    {
        Path subsystemDirectory = root.resolve("devices/virtual/nvme-subsystem").resolve(subsystem);
        mkdirs(subsystemDirectory);
        for (String controller : controllers) {
            symlink(subsystemDirectory.resolve(controller), resolve(root.resolve("class/nvme").resolve(controller)));
        }
        return blockDevice(namespace, subsystemDirectory.resolve(namespace), majorMinor);
    }

    /** A partition inside a disk directory, e.g. {@code nvme0n1p1}; partitions appear in {@code dev/block} only. */
    public Path partition(Path disk, String name, String majorMinor)
    {
        Path directory = disk.resolve(name);
        mkdirs(directory);
        write(directory.resolve("dev"), majorMinor);
        write(directory.resolve("partition"), name.replaceAll(".*[^0-9]", ""));
        symlink(root.resolve("dev/block").resolve(majorMinor), directory);
        return directory;
    }

    /** A virtual block device ({@code dm-0}, {@code md0}, {@code loop0}) stacked on {@code slaves}. */
    public Path virtualBlock(String name, String majorMinor, Path... slaves)
    {
        Path directory = blockDevice(name, root.resolve("devices/virtual/block").resolve(name), majorMinor);
        mkdirs(directory.resolve("slaves"));
        for (Path slave : slaves) {
            symlink(directory.resolve("slaves").resolve(slave.getFileName().toString()), slave);
        }
        return directory;
    }

    /** A plain disk on a PCI function (e.g. SATA through AHCI), {@code devices/<pci>/.../block/<name>}. */
    public Path disk(String name, String pciAddress, String majorMinor)
    {
        return blockDevice(name, function(pciAddress).resolve("ata1/host0/target0:0:0/0:0:0:0/block").resolve(name), majorMinor);
    }

    private Path blockDevice(String name, Path directory, String majorMinor)
    {
        mkdirs(directory);
        write(directory.resolve("dev"), majorMinor);
        symlink(root.resolve("block").resolve(name), directory);
        symlink(root.resolve("dev/block").resolve(majorMinor), directory);
        return directory;
    }

    /** A loaded module, {@code module/<name>} with a {@code version} file when given. */
    public SysfsTreeBuilder module(String name, String version)
    {
        mkdirs(root.resolve("module").resolve(name));
        if (version != null) {
            write(root.resolve("module").resolve(name).resolve("version"), version);
        }
        return this;
    }

    public SysfsTreeBuilder iommuGroup(int group, String type, String... pciAddresses)
    {
        Path directory = root.resolve("kernel/iommu_groups").resolve(String.valueOf(group));
        mkdirs(directory.resolve("devices"));
        if (type != null) {
            write(directory.resolve("type"), type);
        }
        for (String address : pciAddresses) {
            symlink(directory.resolve("devices").resolve(address), function(address));
            symlink(function(address).resolve("iommu_group"), directory);
        }
        return this;
    }

    public SysfsTreeBuilder numaNode(int node, String cpus)
    {
        write(root.resolve("devices/system/node").resolve("node" + node).resolve("cpulist"), cpus);
        return this;
    }

    /** Any other file, relative to the root. */
    public SysfsTreeBuilder file(String relative, String content)
    {
        write(root.resolve(relative), content);
        return this;
    }

    public final class PciFunction
    {
        private final Path directory;

        private PciFunction(Path directory)
        {
            this.directory = directory;
        }

        public String address()
        {
            return directory.getFileName().toString();
        }

        public Path directory()
        {
            return directory;
        }

        /** Maximum and current link alike. */
        public PciFunction link(String speed, int width)
        {
            return link(speed, width, speed, width);
        }

        public PciFunction link(String maxSpeed, int maxWidth, String currentSpeed, int currentWidth)
        {
            write(directory.resolve("max_link_speed"), maxSpeed);
            write(directory.resolve("max_link_width"), String.valueOf(maxWidth));
            write(directory.resolve("current_link_speed"), currentSpeed);
            write(directory.resolve("current_link_width"), String.valueOf(currentWidth));
            return this;
        }

        public PciFunction subsystem(int vendor, int device)
        {
            write(directory.resolve("subsystem_vendor"), String.format("0x%04x", vendor));
            write(directory.resolve("subsystem_device"), String.format("0x%04x", device));
            return this;
        }

        public PciFunction numa(int node)
        {
            write(directory.resolve("numa_node"), String.valueOf(node));
            return this;
        }
    }

    public final class RdmaDevice
    {
        private final Path directory;

        private RdmaDevice(Path directory)
        {
            this.directory = directory;
        }

        public RdmaDevice port(int number, String linkLayer, String state, String physicalState, String rate)
        {
            Path port = directory.resolve("ports").resolve(String.valueOf(number));
            mkdirs(port);
            if (linkLayer != null) {
                write(port.resolve("link_layer"), linkLayer);
            }
            write(port.resolve("state"), state);
            write(port.resolve("phys_state"), physicalState);
            write(port.resolve("rate"), rate);
            return this;
        }
    }

    private static Path resolve(Path path)
    {
        try {
            return path.toRealPath();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void symlink(Path link, Path target)
    {
        try {
            mkdirs(link.getParent());
            Files.createSymbolicLink(link, link.getParent().toAbsolutePath().relativize(target.toAbsolutePath()));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void write(Path file, String content)
    {
        try {
            mkdirs(file.getParent());
            // sysfs attributes end with a newline
            Files.writeString(file, content + "\n", StandardCharsets.UTF_8);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void mkdirs(Path directory)
    {
        try {
            Files.createDirectories(directory);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
