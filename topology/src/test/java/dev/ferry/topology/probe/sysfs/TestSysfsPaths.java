package dev.ferry.topology.probe.sysfs;

import dev.ferry.topology.model.PciAddress;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

class TestSysfsPaths
{
    @Test
    void bareMetalPathsSpellTheSwitchHierarchy()
    {
        Path gpu = Path.of("/sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:18:00.0");
        assertEquals("pci0000:15", SysfsPaths.rootComplex(gpu));
        assertEquals(List.of(PciAddress.parse("0000:15:01.0"), PciAddress.parse("0000:16:00.0"), PciAddress.parse("0000:17:00.0"), PciAddress.parse("0000:18:00.0")),
                SysfsPaths.functions(gpu));
    }

    @Test
    void hyperVPathsStartAtTheInnermostHostBridge()
    {
        // Azure NDv4: each GPU is alone on its own PCI domain below the VMBus
        Path gpu = Path.of("/sys/devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0004:00/VMBUS:00/8ff4a9f0-5f1a-4e2b-a1c6-3e3f6a1c2b01/pci0001:00/0001:00:00.0");
        assertEquals("pci0001:00", SysfsPaths.rootComplex(gpu));
        assertEquals(List.of(PciAddress.parse("0001:00:00.0")), SysfsPaths.functions(gpu));
    }

    @Test
    void classDevicesBelongToTheLastFunctionInTheirPath()
    {
        assertEquals(Optional.of(PciAddress.parse("0000:00:03.0")), SysfsPaths.lastFunction(Path.of("/sys/devices/pci0000:00/0000:00:03.0/virtio0/net/eth0")));
        assertEquals(Optional.of(PciAddress.parse("0000:3b:00.1")), SysfsPaths.lastFunction(Path.of("/sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.1/infiniband/mlx5_1")));
        assertEquals(Optional.empty(), SysfsPaths.lastFunction(Path.of("/sys/devices/virtual/net/docker0")));
        // Device number 0x3f cannot exist; such a component is no address
        assertEquals(Optional.empty(), SysfsPaths.parseFunction("0000:00:3f.0"));
        assertEquals("unknown", SysfsPaths.rootComplex(Path.of("/sys/devices/virtual/net/docker0")));
    }
}
