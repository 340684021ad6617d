package dev.ferry.shuffle.transport.rdma.verbs.simulated;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.shuffle.transport.InjectedFault;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The simulated NIC's test-only fault hook: off by default, once per NIC, or once across processes sharing a file. */
class TestFaultInjector
{
    @TempDir
    Path directory;

    @Test
    void offUnlessConfigured()
    {
        SimulatedNicOptions options = SimulatedNicOptions.from(MapConfigSource.empty());
        assertEquals(InjectedFault.NONE, options.faults().fault());
        for (int i = 0; i < 3; i++) {
            assertEquals(InjectedFault.NONE, options.faults().next("nic", i, 1, 0, 10));
        }
    }

    @Test
    void firesOnTheFirstReadOnly()
    {
        FaultInjector faults = SimulatedNicOptions.from(new MapConfigSource(Map.of("spark.ferry.transport.test.faultInjection", "flip_byte"))).faults();
        assertEquals(InjectedFault.FLIP_BYTE, faults.next("nic", 1, 1, 0, 10));
        assertEquals(InjectedFault.NONE, faults.next("nic", 2, 1, 0, 10));
    }

    @Test
    void aOnceFileLetsOnlyTheFirstNicFire()
    {
        Path once = directory.resolve("fired");
        MapConfigSource config = new MapConfigSource(Map.of("spark.ferry.transport.test.faultInjection", "stale_key",
                "spark.ferry.transport.test.faultInjection.onceFile", once.toString()));
        // Two executors' NICs: options built from the same configuration, as in two JVMs.
        FaultInjector first = SimulatedNicOptions.from(config).faults();
        FaultInjector second = SimulatedNicOptions.from(config).faults();
        assertEquals(InjectedFault.STALE_KEY, first.next("nic-a", 1, 1, 0, 10));
        assertTrue(Files.exists(once));
        assertEquals(InjectedFault.NONE, second.next("nic-b", 1, 1, 0, 10));
        assertEquals(InjectedFault.NONE, new FaultInjector(InjectedFault.PEER_DIES, Optional.of(once)).next("nic-c", 1, 1, 0, 10));
    }
}
