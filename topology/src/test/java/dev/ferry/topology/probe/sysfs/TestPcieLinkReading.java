package dev.ferry.topology.probe.sysfs;

import org.junit.jupiter.api.Test;

import java.util.Optional;
import java.util.OptionalInt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

class TestPcieLinkReading
{
    @Test
    void bothKernelSpellingsOfTheSpeedGiveTheGeneration()
    {
        assertEquals(1, PcieLinkReading.generationOf("2.5 GT/s PCIe"));
        assertEquals(1, PcieLinkReading.generationOf("2.5 GT/s"));
        assertEquals(2, PcieLinkReading.generationOf("5.0 GT/s PCIe"));
        assertEquals(3, PcieLinkReading.generationOf("8 GT/s"));
        assertEquals(4, PcieLinkReading.generationOf("16.0 GT/s PCIe"));
        assertEquals(4, PcieLinkReading.generationOf("16 GT/s"));
        assertEquals(5, PcieLinkReading.generationOf("32.0 GT/s PCIe"));
        assertEquals(6, PcieLinkReading.generationOf("64.0 GT/s PCIe"));
        assertEquals(0, PcieLinkReading.generationOf("Unknown"));
        assertEquals(0, PcieLinkReading.generationOf("Unknown speed"));
        assertEquals(0, PcieLinkReading.generationOf("12 GT/s"));
    }

    @Test
    void implausibleWidthsAreUnknown()
    {
        PcieLinkReading reading = PcieLinkReading.fromSysfs(Optional.of("8.0 GT/s PCIe"), OptionalInt.of(255), Optional.empty(), OptionalInt.of(0));
        assertEquals(0, reading.maxWidth());
        assertEquals(0, reading.currentWidth());
        assertFalse(reading.isKnown());
        assertEquals("unknown", reading.toString());
    }

    @Test
    void minTakesTheSmallerKnownValueOfEachField()
    {
        PcieLinkReading port = new PcieLinkReading(4, 16, 4, 16);
        PcieLinkReading device = new PcieLinkReading(5, 16, 0, 8);
        assertEquals(new PcieLinkReading(4, 16, 4, 8), port.min(device));
        assertEquals(port, port.min(PcieLinkReading.UNKNOWN));
    }
}
