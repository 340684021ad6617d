package dev.ferry.shuffle.transport.rdma;

import java.time.Duration;
import java.util.function.IntSupplier;

import dev.ferry.shuffle.transport.rdma.verbs.VerbsConnection;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsSettings;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.CmFault;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.SimulatedDevice;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.SimulatedNicOptions;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.SimulatedVerbsProvider;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/** A departed executor's pooled verbs connections are closed, on this NIC and (by the disconnect) on the peer's. */
class TestVerbsBlocksDeparture
{
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final VerbsSettings SETTINGS = new VerbsSettings(64, 8, 256, Integer.MAX_VALUE, Duration.ofSeconds(10));

    @Test
    void aDepartedPeersPooledConnectionsAreClosedOnBothSides()
            throws Exception
    {
        SimulatedVerbsProvider provider = new SimulatedVerbsProvider(new SimulatedNicOptions(true, 1 << 20, false, CmFault.NONE));
        SimulatedDevice serverDevice = provider.openLoopbackDevice("sim_server", SETTINGS);
        SimulatedDevice clientDevice = provider.openLoopbackDevice("sim_client", SETTINGS);
        try (VerbsBlocks server = new VerbsBlocks(serverDevice, SETTINGS, 64 << 10, WAIT);
                VerbsBlocks client = new VerbsBlocks(clientDevice, SETTINGS, 64 << 10, WAIT)) {
            VerbsBlocks.Admitter admitter = DirectAdmitter.of(serverDevice);
            VerbsConnection first = client.connection(null, admitter);
            VerbsConnection second = client.connection(null, admitter);
            client.bindExecutor("7", first.peer());
            client.release(first, true);
            client.release(second, true);
            assertEquals(2, client.openEndpoints());
            awaitCount(2, serverDevice::openEndpoints, "the server accepted both queue pairs");
            assertSame(second, client.connection(first.peer(), admitter), "pooled, reused");
            client.release(second, true);

            assertEquals(0, client.peerLeft("8"), "another executor's departure closes nothing");
            assertEquals(2, client.peerLeft("7"));
            assertEquals(0, client.openEndpoints(), "no queue pair left to the departed peer");
            awaitCount(0, serverDevice::openEndpoints, "the peer's accepted endpoints go with the disconnect");
            assertEquals(0, client.peerLeft("7"), "nothing left the second time");
        }
    }

    private static void awaitCount(int expected, IntSupplier count, String message)
            throws InterruptedException
    {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (count.getAsInt() != expected && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(expected, count.getAsInt(), message);
    }
}
