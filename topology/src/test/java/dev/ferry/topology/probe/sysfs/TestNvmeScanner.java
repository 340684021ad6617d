package dev.ferry.topology.probe.sysfs;

import dev.ferry.topology.model.NvmeDrive;
import dev.ferry.topology.model.PciAddress;
import dev.ferry.topology.probe.SysfsTreeBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;

class TestNvmeScanner
{
    @TempDir
    Path temp;

    @Test
    void namespacesAreFoundBelowControllersAndSubsystems()
    {
        SysfsTreeBuilder tree = new SysfsTreeBuilder(temp.resolve("sys"));
        tree.pci("pci0000:00/0000:00:01.0/0000:01:00.0", SysfsTreeBuilder.CLASS_NVME, SysfsTreeBuilder.VENDOR_SAMSUNG, 0xa80a).numa(1);
        tree.pci("pci0000:00/0000:00:02.0/0000:02:00.0", SysfsTreeBuilder.CLASS_NVME, SysfsTreeBuilder.VENDOR_SAMSUNG, 0xa80a);
        tree.pci("pci0000:00/0000:00:03.0/0000:03:00.0", SysfsTreeBuilder.CLASS_NVME, SysfsTreeBuilder.VENDOR_SAMSUNG, 0xa80a);
        tree.nvmeController("nvme0", "0000:01:00.0", "pcie");
        tree.nvmeNamespace("nvme0", "nvme0n1", "259:0");
        tree.nvmeNamespace("nvme0", "nvme0n2", "259:1");
        // A dual-ported drive under native multipath: one namespace, two controllers
        tree.nvmeController("nvme1", "0000:02:00.0", "pcie");
        tree.nvmeController("nvme2", "0000:03:00.0", "pcie");
        tree.multipathNamespace("nvme-subsys1", "nvme1n1", "259:2", "nvme1", "nvme2");
        tree.fabricsNvmeController("nvme3", "tcp");
        tree.nvmeNamespace("nvme3", "nvme3n1", "259:3");
        Map<String, NvmeDrive> drives = new NvmeScanner(new SysfsReader(tree.root())).scan().stream()
                .collect(Collectors.toMap(NvmeDrive::controller, Function.identity()));

        assertEquals(List.of("nvme0n1", "nvme0n2"), drives.get("nvme0").namespaces());
        assertEquals(Optional.of(PciAddress.parse("0000:01:00.0")), drives.get("nvme0").pci());
        assertEquals(OptionalInt.of(1), drives.get("nvme0").numaNode());
        assertEquals(List.of("nvme1n1"), drives.get("nvme1").namespaces());
        assertEquals(List.of("nvme1n1"), drives.get("nvme2").namespaces());
        assertEquals(OptionalInt.empty(), drives.get("nvme1").numaNode());
        assertEquals("tcp", drives.get("nvme3").transport());
        assertEquals(Optional.empty(), drives.get("nvme3").pci());
        assertEquals(List.of("nvme3n1"), drives.get("nvme3").namespaces());
    }
}
