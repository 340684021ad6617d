package dev.ferry.topology.probe.sysfs;

import dev.ferry.topology.model.PciAddress;

import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;

import static java.util.Objects.requireNonNull;

/**
 * Lists {@code /sys/bus/pci/devices}: each entry is a symlink into {@code /sys/devices/pciDDDD:BB/...};
 * the resolved path gives the switch hierarchy, the directory the attributes.
 */
public final class PciDeviceScanner
{
    private final SysfsReader sysfs;

    public PciDeviceScanner(SysfsReader sysfs)
    {
        this.sysfs = requireNonNull(sysfs, "sysfs is null");
    }

    /** Every readable PCI function, by address; empty when {@code bus/pci/devices} is missing. */
    public Map<PciAddress, SysfsPciDevice> scan()
    {
        Path devices = sysfs.path("bus/pci/devices");
        Map<PciAddress, SysfsPciDevice> result = new TreeMap<>();
        for (String name : SysfsReader.list(devices)) {
            SysfsPaths.parseFunction(name)
                    .flatMap(address -> read(address, devices.resolve(name)))
                    .ifPresent(device -> result.put(device.address(), device));
        }
        return Collections.unmodifiableMap(result);
    }

    private static Optional<SysfsPciDevice> read(PciAddress address, Path entry)
    {
        Optional<Path> resolved = SysfsReader.realPath(entry);
        if (resolved.isEmpty()) {
            // A dangling link: the device was removed while we listed the directory
            return Optional.empty();
        }
        Path directory = resolved.get();
        List<PciAddress> chain = SysfsPaths.functions(directory);
        if (chain.isEmpty() || !chain.get(chain.size() - 1).equals(address)) {
            chain = List.of(address);
        }
        OptionalInt numaNode = SysfsReader.readInt(directory.resolve("numa_node"));
        if (numaNode.isPresent() && numaNode.getAsInt() < 0) {
            numaNode = OptionalInt.empty();
        }
        PcieLinkReading link = PcieLinkReading.fromSysfs(
                SysfsReader.read(directory.resolve("max_link_speed")),
                SysfsReader.readInt(directory.resolve("max_link_width")),
                SysfsReader.read(directory.resolve("current_link_speed")),
                SysfsReader.readInt(directory.resolve("current_link_width")));
        return Optional.of(new SysfsPciDevice(
                address,
                SysfsPaths.rootComplex(directory),
                chain,
                SysfsReader.readHex(directory.resolve("class")).orElse(-1),
                SysfsReader.readHex(directory.resolve("vendor")).orElse(-1),
                SysfsReader.readHex(directory.resolve("device")).orElse(-1),
                SysfsReader.readHex(directory.resolve("subsystem_vendor")).orElse(-1),
                SysfsReader.readHex(directory.resolve("subsystem_device")).orElse(-1),
                link,
                numaNode,
                SysfsPaths.linkTargetName(directory.resolve("iommu_group")),
                SysfsPaths.linkTargetName(directory.resolve("driver"))));
    }
}
