package dev.ferry.device;

import dev.ferry.topology.model.PciAddress;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A physical GPU to a runtime device: by PCI bus id, by index only where the devices have no bus ids. */
class TestDeviceMatch
{
    private static final List<DeviceInfo> FASTEST_FIRST = List.of(
            new DeviceInfo(0, "H100", 80L << 30, "0000:DB:00.0"),
            new DeviceInfo(1, "H100", 80L << 30, "00000000:18:00.0"),
            new DeviceInfo(2, "H100", 80L << 30, "0000:5d:00.0"));

    @Test
    void theBusIdNamesTheDeviceWhateverTheCudaOrder()
    {
        DeviceMatch match = DeviceMatch.find(FASTEST_FIRST, Optional.of(PciAddress.parse("0000:18:00.0")), 0).orElseThrow();
        assertEquals(1, match.ordinal(), "NVML index 0 at 18:00.0 is CUDA device 1 here");
        assertTrue(match.reason().contains("0000:18:00.0"), match.reason());
        assertEquals(0, DeviceMatch.find(FASTEST_FIRST, Optional.of(PciAddress.parse("db:00.0")), 7).orElseThrow().ordinal());
        assertEquals(Optional.empty(), DeviceMatch.find(FASTEST_FIRST, Optional.of(PciAddress.parse("0000:9a:00.0")), 1), "a GPU this process does not see");
    }

    @Test
    void withoutBusIdsOnlyTheIndexIsLeftAndTheMatchSaysSo()
    {
        List<DeviceInfo> simulated = List.of(new DeviceInfo(0, "Simulated GPU 0", 1 << 20, "simulated:0"), new DeviceInfo(1, "Simulated GPU 1", 1 << 20, "simulated:1"));
        DeviceMatch match = DeviceMatch.find(simulated, Optional.of(PciAddress.parse("0000:18:00.0")), 1).orElseThrow();
        assertEquals(1, match.ordinal());
        assertTrue(match.reason().contains("no PCI bus ids"), match.reason());
        assertEquals(2, DeviceMatch.find(FASTEST_FIRST, Optional.empty(), 2).orElseThrow().ordinal(), "the GPU's bus id unknown");
        assertEquals(Optional.empty(), DeviceMatch.find(simulated, Optional.empty(), 5));
    }
}
