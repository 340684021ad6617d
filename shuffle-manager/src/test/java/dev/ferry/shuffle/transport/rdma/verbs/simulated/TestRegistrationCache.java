package dev.ferry.shuffle.transport.rdma.verbs.simulated;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import dev.ferry.shuffle.transport.TestBytes;
import dev.ferry.shuffle.transport.rdma.verbs.Access;
import dev.ferry.shuffle.transport.rdma.verbs.ReadTarget;
import dev.ferry.shuffle.transport.rdma.verbs.RegistrableMemory;
import dev.ferry.shuffle.transport.rdma.verbs.Registration;
import dev.ferry.shuffle.transport.rdma.verbs.RegistrationCache;
import dev.ferry.shuffle.transport.rdma.verbs.RemoteReader;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsConnection;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsException;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsSettings;
import dev.ferry.shuffle.transport.wire.RemoteSlice;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Blocks of one registered arena share its registration: one ibv_reg_mr per arena, none left after release or close. */
class TestRegistrationCache
{
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final SimulatedNicOptions DEFAULT = new SimulatedNicOptions(true, 1 << 20, false, CmFault.NONE);
    private static final VerbsSettings SETTINGS = new VerbsSettings(64, 8, 256, Integer.MAX_VALUE, Duration.ofSeconds(10));
    private static final int BLOCK = 4096;
    private static final int BLOCKS = 8;

    private final List<SimulatedDevice> devices = new ArrayList<>();

    @AfterEach
    void closeDevices()
    {
        devices.forEach(SimulatedDevice::close);
    }

    private SimulatedDevice open(String name)
            throws VerbsException
    {
        SimulatedDevice device = new SimulatedVerbsProvider(DEFAULT).openLoopbackDevice(name, SETTINGS);
        devices.add(device);
        return device;
    }

    @Test
    void blocksOfOneArenaShareOneRegistrationUntilTheArenaIsReleased()
            throws Exception
    {
        SimulatedDevice server = open("mlx5_0");
        SimulatedDevice client = open("mlx5_1");
        ByteBuffer arena = TestBytes.direct(7, BLOCK * BLOCKS);
        RegistrationCache cache = new RegistrationCache(server.protectionDomain(), Access.remoteReadable());
        List<Registration> blocks = new ArrayList<>();
        for (int index = 0; index < BLOCKS; index++) {
            blocks.add(cache.block(arena, (domain, access) -> domain.register(RegistrableMemory.host(arena), access), (long) index * BLOCK, BLOCK));
        }
        assertEquals(1, server.regionRegistrations(), "one ibv_reg_mr for the arena, not one per block");
        assertEquals(1, server.registeredRegions());
        assertEquals(1, cache.registeredRegions());

        // A block's slice READs exactly that block's bytes through the arena's keys.
        ByteBuffer sinkBuffer = ByteBuffer.allocateDirect(BLOCK);
        Registration sink = client.protectionDomain().register(RegistrableMemory.host(sinkBuffer), Access.readSink());
        String host = InetAddress.getLoopbackAddress().getHostAddress();
        try (VerbsConnection connection = client.connect(server.listenAddress(), WAIT, server.admissions().issue(1, host))) {
            List<ReadTarget> targets = new ArrayList<>();
            for (RemoteSlice slice : blocks.get(5).remoteSlices(0, BLOCK)) {
                targets.add(new ReadTarget(slice, slice.offset()));
            }
            new RemoteReader(connection, SETTINGS, 1024).read(targets, sink, WAIT);
        }
        byte[] whole = TestBytes.bytes(7, BLOCK * BLOCKS);
        assertArrayEquals(Arrays.copyOfRange(whole, 5 * BLOCK, 6 * BLOCK), TestBytes.toArray(sinkBuffer));

        // Releasing blocks leaves the arena registered; releasing the arena deregisters it once its last registered block is done.
        for (int index = 0; index < BLOCKS - 1; index++) {
            blocks.get(index).deregister();
        }
        assertEquals(1, server.registeredRegions());
        cache.released(arena);
        assertEquals(1, server.registeredRegions(), "a peer may still READ the last block: the arena stays registered");
        assertThrows(IllegalArgumentException.class, () -> blocks.get(BLOCKS - 1).slice(0, BLOCK + 1, regions -> {}));
        blocks.get(BLOCKS - 1).deregister();
        assertEquals(0, server.registeredRegions(), "no live region once the arena is released and its blocks are done");
        assertEquals(0, cache.registeredRegions());
        assertEquals(1, server.regionRegistrations());

        // A second arena lives until the cache closes.
        ByteBuffer other = TestBytes.direct(8, BLOCK * 2);
        cache.block(other, (domain, access) -> domain.register(RegistrableMemory.host(other), access), BLOCK, BLOCK);
        cache.block(other, (domain, access) -> domain.register(RegistrableMemory.host(other), access), 0, BLOCK);
        assertEquals(2, server.regionRegistrations());
        assertEquals(1, server.registeredRegions());
        cache.close();
        assertEquals(0, server.registeredRegions(), "closing the cache deregisters every arena");
        assertThrows(VerbsException.class, () -> cache.block(other, (domain, access) -> domain.register(RegistrableMemory.host(other), access), 0, BLOCK));
        sink.deregister();
    }

    @Test
    void aBlockOutsideItsArenaIsRefused()
            throws Exception
    {
        SimulatedDevice server = open("mlx5_0");
        ByteBuffer arena = TestBytes.direct(9, BLOCK);
        try (RegistrationCache cache = new RegistrationCache(server.protectionDomain(), Access.remoteReadable())) {
            assertThrows(IllegalArgumentException.class,
                    () -> cache.block(arena, (domain, access) -> domain.register(RegistrableMemory.host(arena), access), BLOCK / 2, BLOCK));
        }
        assertEquals(0, server.registeredRegions());
    }
}
