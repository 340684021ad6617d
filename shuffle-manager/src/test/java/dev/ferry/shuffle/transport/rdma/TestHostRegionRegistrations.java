package dev.ferry.shuffle.transport.rdma;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.ferry.shuffle.store.BlockBytes;
import dev.ferry.shuffle.store.EncodedMapOutput;
import dev.ferry.shuffle.store.HostMapOutputStore;
import dev.ferry.shuffle.store.MapOutputId;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsConnection;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsSettings;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.CmFault;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.SimulatedDevice;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.SimulatedNicOptions;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.SimulatedVerbsProvider;
import dev.ferry.shuffle.transport.wire.RemoteSlice;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Host-memory RDMA registers a region at a time on both sides (issue 17 item 6, simulated NICs,
 * which count every {@code ibv_reg_mr} and the regions alive): the server registers a stored map
 * output once for all its blocks (each served block a slice with the output's keys) and drops the
 * registration when the store releases the output, not before its last served block is done; the
 * reader READs into landing buffers registered once and reused for later blocks. Every block READ
 * equals what the map wrote, and at close every registration was deregistered on both NICs.
 */
class TestHostRegionRegistrations
{
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final VerbsSettings SETTINGS = new VerbsSettings(64, 8, 256, 1 << 20, Duration.ofSeconds(10));
    private static final int MAPS = 3;
    private static final int PARTITIONS = 4;
    private static final int BLOCK = 48 * 1024;

    @TempDir
    Path directory;

    @Test
    void storedOutputsAndLandingBuffersAreRegisteredOncePerRegion()
            throws Exception
    {
        SimulatedVerbsProvider provider = new SimulatedVerbsProvider(new SimulatedNicOptions(true, 1 << 20, false, CmFault.NONE));
        SimulatedDevice serverNic = provider.openLoopbackDevice("sim_server", SETTINGS);
        SimulatedDevice readerNic = provider.openLoopbackDevice("sim_reader", SETTINGS);
        VerbsBlocks.Admitter admitter = DirectAdmitter.of(serverNic);
        try (BufferAllocator reader = new RootAllocator()) {
            try (VerbsBlocks server = new VerbsBlocks(serverNic, SETTINGS, 16 << 10, WAIT);
                    VerbsBlocks client = new VerbsBlocks(readerNic, SETTINGS, 16 << 10, WAIT);
                    HostMapOutputStore store = new HostMapOutputStore(new RootAllocator(), 64L << 20, directory.resolve("spill"))) {
                for (int map = 0; map < MAPS; map++) {
                    store.commit(new MapOutputId(1, map, map, 0), new PatternOutput(map));
                }
                VerbsConnection connection = client.connection(null, admitter);
                for (int round = 0; round < 2; round++) {
                    for (int map = 0; map < MAPS; map++) {
                        List<VerbsBlocks.Exported> served = new ArrayList<>();
                        List<Integer> rkeys = new ArrayList<>();
                        for (int partition = 0; partition < PARTITIONS; partition++) {
                            VerbsBlocks.Exported export = server.export(store.open(1, map, partition).orElseThrow());
                            served.add(export);
                            export.slices().slices().stream().map(RemoteSlice::rkey).forEach(rkeys::add);
                            try (BlockBytes read = client.read(export.slices(), reader, connection)) {
                                byte[] bytes = new byte[(int) read.length()];
                                read.buffer().getBytes(0, bytes);
                                assertArrayEquals(PatternOutput.block(map, partition), bytes, "map " + map + " partition " + partition + " round " + round);
                            }
                        }
                        assertEquals(1, rkeys.stream().distinct().count(), "every block of map " + map + " is a slice of its output's registration: " + rkeys);
                        served.forEach(VerbsBlocks.Exported::close);
                    }
                }
                client.release(connection, true);
                int blocks = 2 * MAPS * PARTITIONS;
                assertEquals(MAPS, server.hostRegionRegistrations(), "one ibv_reg_mr per stored output, not one per block (" + blocks + " blocks served)");
                assertEquals(MAPS, server.registeredHostRegions(), "the outputs stay registered while the store holds them");
                assertEquals(0, server.perBlockHostRegistrations());
                assertEquals(MAPS, serverNic.regionRegistrations(), "the server NIC's own count of ibv_reg_mr");
                assertEquals(1, client.landingRegistrations(), "one landing buffer, registered once, for " + blocks + " READs");
                assertEquals(blocks - 1, client.reusedLandings());
                assertEquals(1, readerNic.regionRegistrations(), "the reader NIC's own count of ibv_reg_mr");
                assertEquals(1, readerNic.registeredRegions(), "the idle landing buffer stays registered");

                // The store releases map 0 while a block of it is still served: the output stays registered until that block is done.
                VerbsBlocks.Exported held = server.export(store.open(1, 0, 2).orElseThrow());
                store.remove(1, 0);
                assertEquals(MAPS, server.registeredHostRegions(), "a peer may still READ the held block");
                VerbsConnection again = client.connection(connection.peer(), admitter);
                try (BlockBytes read = client.read(held.slices(), reader, again)) {
                    byte[] bytes = new byte[(int) read.length()];
                    read.buffer().getBytes(0, bytes);
                    assertArrayEquals(PatternOutput.block(0, 2), bytes, "the held block reads whole after its output was released");
                }
                client.release(again, true);
                held.close();
                assertEquals(MAPS - 1, server.registeredHostRegions(), "deregistered by the store's release hook once its last block was done");
                assertEquals(MAPS - 1, serverNic.registeredRegions());
                // The rest, released with no block served: deregistered at once.
                assertEquals(MAPS - 1, store.removeShuffle(1));
                assertEquals(0, server.registeredHostRegions(), "the store released every output");
                assertEquals(0, serverNic.registeredRegions(), "no live region on the server's NIC");
            }
            assertEquals(0, serverNic.registeredRegions(), "books balanced at close: every registration deregistered");
            assertEquals(0, readerNic.registeredRegions(), "books balanced at close: every landing buffer deregistered");
            assertEquals(0, reader.getAllocatedMemory(), "every landing given back");
        }
    }

    @Test
    void aBlockFromAReleasedOutputStillRegistersAndIsDeregisteredWithIt()
            throws Exception
    {
        SimulatedVerbsProvider provider = new SimulatedVerbsProvider(new SimulatedNicOptions(true, 1 << 20, false, CmFault.NONE));
        SimulatedDevice serverNic = provider.openLoopbackDevice("sim_server", SETTINGS);
        try (VerbsBlocks server = new VerbsBlocks(serverNic, SETTINGS, 16 << 10, WAIT);
                HostMapOutputStore store = new HostMapOutputStore(new RootAllocator(), 64L << 20, directory.resolve("spill"))) {
            store.commit(new MapOutputId(2, 0, 0, 0), new PatternOutput(5));
            // Opened before the store removes the output (a fetch racing the shuffle's cleanup), served after.
            BlockBytes opened = store.open(2, 0, 1).orElseThrow();
            store.remove(2, 0);
            VerbsBlocks.Exported export = server.export(opened);
            assertEquals(1, server.registeredHostRegions(), "registered for the block in flight");
            export.close();
            assertEquals(0, server.registeredHostRegions(), "the hook ran at once (the output was released): deregistered with the block");
            assertEquals(0, serverNic.registeredRegions());
        }
    }

    @Test
    void noLandingBufferIsKeptWithoutARetainBudget()
            throws Exception
    {
        SimulatedVerbsProvider provider = new SimulatedVerbsProvider(new SimulatedNicOptions(true, 1 << 20, false, CmFault.NONE));
        SimulatedDevice serverNic = provider.openLoopbackDevice("sim_server", SETTINGS);
        SimulatedDevice readerNic = provider.openLoopbackDevice("sim_reader", SETTINGS);
        VerbsBlocks.Admitter admitter = DirectAdmitter.of(serverNic);
        try (BufferAllocator reader = new RootAllocator();
                VerbsBlocks server = new VerbsBlocks(serverNic, SETTINGS, 16 << 10, WAIT);
                VerbsBlocks client = new VerbsBlocks(readerNic, SETTINGS, 16 << 10, WAIT, 0);
                HostMapOutputStore store = new HostMapOutputStore(new RootAllocator(), 64L << 20, directory.resolve("spill"))) {
            store.commit(new MapOutputId(3, 0, 0, 0), new PatternOutput(9));
            VerbsConnection connection = client.connection(null, admitter);
            for (int partition = 0; partition < PARTITIONS; partition++) {
                try (VerbsBlocks.Exported export = server.export(store.open(3, 0, partition).orElseThrow());
                        BlockBytes read = client.read(export.slices(), reader, connection)) {
                    assertTrue(read.length() == BLOCK + partition);
                }
                assertEquals(0, readerNic.registeredRegions(), "a landing freed after its block is deregistered with it");
            }
            client.release(connection, true);
            assertEquals(PARTITIONS, client.landingRegistrations(), "without a retain budget each block gets (and registers) its own landing");
        }
    }

    /** A map output of {@link #PARTITIONS} blocks of about {@link #BLOCK} bytes, each a pattern of its map and partition. */
    private record PatternOutput(int map)
            implements EncodedMapOutput
    {
        static byte[] block(int map, int partition)
        {
            byte[] bytes = new byte[BLOCK + partition];
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = (byte) (i * 7 + map * 31 + partition);
            }
            return bytes;
        }

        @Override
        public int partitions()
        {
            return PARTITIONS;
        }

        @Override
        public long blockLength(int partition)
        {
            return BLOCK + partition;
        }

        @Override
        public void writeBlock(int partition, ByteBuffer target)
        {
            target.put(block(map, partition));
        }
    }
}
