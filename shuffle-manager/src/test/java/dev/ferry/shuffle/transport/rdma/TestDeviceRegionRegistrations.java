package dev.ferry.shuffle.transport.rdma;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.pool.BlockLease;
import dev.ferry.device.pool.DeviceMemoryPool;
import dev.ferry.device.pool.LocalSpillDirectory;
import dev.ferry.device.pool.StoredBlock;
import dev.ferry.device.pool.TieredShuffleStore;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsSettings;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.CmFault;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.SimulatedDevice;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.SimulatedNicOptions;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.SimulatedVerbsProvider;
import dev.ferry.shuffle.transport.wire.RemoteSlice;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * GPUDirect RDMA serving registers GPU memory a region at a time (issue 17 item 6, on the simulated
 * backend, whose GPU is one arena): the first block of a region registers the whole region, later
 * blocks are slices of it with its keys (no registration of their own); the region stays registered
 * while blocks come and go and is deregistered when its memory is released. The NIC's books (BAR1 in
 * use) match: one region's bytes while registered, 0 after. A region larger than BAR1 allows is
 * registered per block instead.
 */
class TestDeviceRegionRegistrations
{
    private static final VerbsSettings VERBS = new VerbsSettings(64, 8, 256, 1 << 20, Duration.ofSeconds(10));
    private static final long ARENA = 4L << 20;
    private static final int BLOCK = 64 * 1024;

    @TempDir
    Path directory;

    @Test
    void aRegionIsRegisteredOnceAndDeregisteredWhenItsMemoryIsReleased()
            throws Exception
    {
        SimulatedDevice nic = new SimulatedVerbsProvider(new SimulatedNicOptions(true, 64L << 20, false, CmFault.NONE)).openLoopbackDevice("sim_mlx5_0", VERBS);
        try (VerbsBlocks verbs = new VerbsBlocks(nic, VERBS, 64 << 10, Duration.ofSeconds(10))) {
            DeviceRuntime runtime = simulated();
            List<Long> rkeys = new ArrayList<>();
            try (DeviceMemoryPool pool = new DeviceMemoryPool(runtime, 0, ARENA / 2, 100);
                    TieredShuffleStore store = new TieredShuffleStore(runtime, 0, pool, ARENA, new LocalSpillDirectory(directory.resolve("spill"), 0))) {
                for (int round = 0; round < 2; round++) {
                    List<VerbsBlocks.Exported> exports = new ArrayList<>();
                    for (int map = 0; map < 3; map++) {
                        StoredBlock block = new StoredBlock(1, map, round, 0, map);
                        store.put(block, ByteBuffer.allocate(BLOCK));
                        BlockLease lease = store.tryBorrow(block).orElseThrow();
                        VerbsBlocks.Exported export = verbs.exportDevice(runtime, lease);
                        exports.add(export);
                        for (RemoteSlice slice : export.slices().slices()) {
                            rkeys.add((long) slice.rkey());
                        }
                    }
                    assertEquals(1, verbs.deviceRegionRegistrations(), "one registration for every block of the arena, every round");
                assertEquals(0, verbs.perBlockDeviceRegistrations());
                    assertEquals(1, verbs.registeredDeviceRegions(), "registrations == live regions");
                    assertEquals(ARENA, nic.bar1Used(0), "BAR1 holds the one region");
                    exports.forEach(VerbsBlocks.Exported::close);
                    assertEquals(1, verbs.registeredDeviceRegions(), "the region outlives its blocks");
                }
                assertTrue(rkeys.stream().distinct().count() == 1, "every block is a slice of the region's registration: " + rkeys);
            }
            // The simulated GPU's arena goes with the runtime: its release hook deregisters the region first.
            runtime.close();
            assertEquals(0, verbs.registeredDeviceRegions(), "0 registered after the region was released");
            assertEquals(0, nic.bar1Used(0), "the NIC's BAR1 books are back to 0");
            assertEquals(1, verbs.deviceRegionRegistrations());
        }
    }

    @Test
    void aRegionLargerThanBar1IsRegisteredPerBlock()
            throws Exception
    {
        SimulatedDevice nic = new SimulatedVerbsProvider(new SimulatedNicOptions(true, 1L << 20, false, CmFault.NONE)).openLoopbackDevice("sim_mlx5_0", VERBS);
        try (VerbsBlocks verbs = new VerbsBlocks(nic, VERBS, 64 << 10, Duration.ofSeconds(10));
                DeviceRuntime runtime = simulated();
                DeviceMemoryPool pool = new DeviceMemoryPool(runtime, 0, ARENA / 2, 100);
                TieredShuffleStore store = new TieredShuffleStore(runtime, 0, pool, ARENA, new LocalSpillDirectory(directory.resolve("spill"), 0))) {
            StoredBlock block = new StoredBlock(2, 0, 0, 0, 0);
            store.put(block, ByteBuffer.allocate(BLOCK));
            try (VerbsBlocks.Exported export = verbs.exportDevice(runtime, store.tryBorrow(block).orElseThrow())) {
                assertEquals(BLOCK, export.slices().length());
                assertEquals(0, verbs.registeredDeviceRegions(), "the 4 MiB arena does not fit a 1 MiB BAR1");
                assertEquals(1, verbs.perBlockDeviceRegistrations(), "the fallback to a registration per block is counted");
                assertEquals(BLOCK, nic.bar1Used(0), "the block alone is registered");
            }
            assertEquals(0, nic.bar1Used(0));
            try (VerbsBlocks.Exported again = verbs.exportDevice(runtime, store.tryBorrow(block).orElseThrow())) {
                assertEquals(2, verbs.perBlockDeviceRegistrations(), "every block of the refused region is counted, not only the first");
            }
            assertEquals(0, nic.bar1Used(0));
        }
    }

    private static DeviceRuntime simulated()
    {
        return DeviceRuntime.create(new MapConfigSource(Map.of("spark.ferry.device", "simulated", "spark.ferry.device.simulated.capacity", Long.toString(ARENA))));
    }
}
