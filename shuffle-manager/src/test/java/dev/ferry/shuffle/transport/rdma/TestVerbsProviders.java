package dev.ferry.shuffle.transport.rdma;

import java.net.InetSocketAddress;
import java.util.Map;

import dev.ferry.common.FerryException;
import dev.ferry.conf.MapConfigSource;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsAvailability;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsDevice;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsProvider;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsSelection;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsSettings;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.SimulatedVerbsProvider;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which verbs layer each setting and device backend gets, with DiSNI's availability faked both ways. */
class TestVerbsProviders
{
    private static final VerbsAvailability MISSING = new VerbsAvailability(false, "DiSNI unavailable: UnsatisfiedLinkError: no disni in java.library.path");
    private static final VerbsAvailability PRESENT = new VerbsAvailability(true, "libdisni loaded");
    private static final VerbsProvider FAKE_DISNI = new VerbsProvider()
    {
        @Override
        public String name()
        {
            return "disni";
        }

        @Override
        public VerbsDevice openDevice(String deviceName, InetSocketAddress listenAddress, VerbsSettings settings)
        {
            throw new UnsupportedOperationException("not opened in this test");
        }
    };

    private static MapConfigSource mode(String value)
    {
        return new MapConfigSource(Map.of("spark.ferry.transport.verbs", value));
    }

    @Test
    void autoPicksSimulatedForSimulatedDevicesAndOtherwiseDisniOrNothing()
    {
        VerbsSelection simulated = VerbsProviders.select(mode("auto"), "simulated", () -> MISSING, () -> FAKE_DISNI);
        assertEquals(SimulatedVerbsProvider.NAME, simulated.provider().orElseThrow().name());

        long before = VerbsProviders.autoSelectionsWithoutRdma();
        VerbsSelection none = VerbsProviders.select(mode("auto"), "host", () -> MISSING, () -> FAKE_DISNI);
        assertTrue(none.provider().isEmpty());
        assertTrue(none.reason().contains(MISSING.reason()), none.reason());
        assertEquals(before + 1, VerbsProviders.autoSelectionsWithoutRdma(), "the fallback is counted");

        VerbsSelection disni = VerbsProviders.select(mode("auto"), "cuda", () -> PRESENT, () -> FAKE_DISNI);
        assertEquals("disni", disni.provider().orElseThrow().name());
    }

    @Test
    void explicitDisniWithoutTheLibraryIsAnErrorWithTheReason()
    {
        FerryException error = assertThrows(FerryException.class, () -> VerbsProviders.select(mode("disni"), "cuda", () -> MISSING, () -> FAKE_DISNI));
        assertTrue(error.getMessage().contains("no disni in java.library.path"), error.getMessage());
        assertTrue(VerbsProviders.select(mode("off"), "simulated", () -> PRESENT, () -> FAKE_DISNI).provider().isEmpty());
        assertEquals(SimulatedVerbsProvider.NAME, VerbsProviders.select(mode("simulated"), "cuda", () -> PRESENT, () -> FAKE_DISNI).provider().orElseThrow().name());
    }

    @Test
    void theRealProbeIsUsedByDefault()
    {
        VerbsSelection selection = VerbsProviders.select(mode("auto"), "host");
        // Whatever this machine has, the answer comes with a reason and never a LinkageError.
        assertTrue(selection.reason().startsWith("spark.ferry.transport.verbs=auto"), selection.reason());
    }
}
