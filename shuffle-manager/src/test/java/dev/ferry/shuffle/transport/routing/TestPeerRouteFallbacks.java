package dev.ferry.shuffle.transport.routing;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.pool.BlockLease;
import dev.ferry.device.pool.DeviceMemoryPool;
import dev.ferry.device.pool.LocalSpillDirectory;
import dev.ferry.device.pool.StorageTier;
import dev.ferry.device.pool.StoredBlock;
import dev.ferry.device.pool.TieredShuffleStore;
import dev.ferry.shuffle.PeerEndpoints;
import dev.ferry.shuffle.placement.ExecutorPlace;
import dev.ferry.shuffle.store.BlockBytes;
import dev.ferry.shuffle.transport.BlockSource;
import dev.ferry.shuffle.transport.DeviceBlockSource;
import dev.ferry.shuffle.transport.FetchedBlocks;
import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.client.TcpShuffleTransport;
import dev.ferry.shuffle.transport.crypto.SparkCryptoSettings;
import dev.ferry.shuffle.transport.ipc.DeviceLanding;
import dev.ferry.shuffle.transport.metrics.PeerRouteLog;
import dev.ferry.shuffle.transport.metrics.RouteCounters;
import dev.ferry.shuffle.transport.rdma.VerbsBlocks;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsSettings;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.CmFault;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.SimulatedNicOptions;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.SimulatedVerbsProvider;
import dev.ferry.shuffle.transport.server.TcpBlockServer;
import dev.ferry.shuffle.transport.shm.ShmBlockReader;
import dev.ferry.shuffle.transport.shm.ShmBlockWriter;
import dev.ferry.topology.file.TopologyFileReader;
import dev.ferry.topology.model.ClusterTopology;
import dev.ferry.topology.route.Route;
import dev.ferry.topology.route.RoutePolicy;
import dev.ferry.topology.route.RoutePolicyConfig;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.spark.storage.BlockManagerId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 17 item 5 on the simulated backend: a route that does not work between two executors falls
 * back for that peer to the route policy's next choice, with the reason logged once and counted; the
 * blocks arrive whole (compared with what the peer stored), no fetch fails, and the second fetch from
 * the same peer goes straight to the fallback route (the peer is not asked for its GPU blocks again).
 * <ul>
 * <li>IPC that cannot open: the exporter serves from this JVM, and the simulated backend refuses the
 *     handle as {@code cudaIpcOpenMemHandle} does in the process that exported it (the same error
 *     path as a pid that is not visible; a reader in another JVM without the exporter's
 *     {@code /dev/shm} is {@code TestIpcFallbackAcrossProcesses}): PEER_GPU_D2H falls back to
 *     HOST_STAGED;</li>
 * <li>a GPU memory registration that fails: the peer's simulated NIC has no peer memory (no
 *     {@code nvidia_peermem}), so its GPU memory cannot be registered: GPUDIRECT_RDMA falls back to
 *     RDMA_HOST_STAGED.</li>
 * </ul>
 */
class TestPeerRouteFallbacks
{
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final VerbsSettings VERBS = new VerbsSettings(64, 8, 256, 1 << 20, Duration.ofSeconds(10));
    private static final int LENGTH = 256 * 1024;

    @TempDir
    Path directory;

    private BufferAllocator allocator;

    @BeforeEach
    void setUp()
    {
        allocator = new RootAllocator();
    }

    @AfterEach
    void tearDown()
    {
        assertEquals(0, allocator.getAllocatedMemory(), "every fetched buffer was released");
        allocator.close();
    }

    @Test
    void anIpcHandleTheReaderCannotOpenFallsBackToHostStagedOncePerPeer()
            throws Exception
    {
        ClusterTopology dgx = topology();
        String nodeA = dgx.nodes().get(0).hostname();
        Path transportShm = Files.createDirectories(directory.resolve("transport-shm"));
        List<String> logged = new CopyOnWriteArrayList<>();
        RouteCounters counters = new RouteCounters();
        try (DeviceRuntime exporter = simulated(directory.resolve("exporter-shm"));
                DeviceRuntime reader = simulated(directory.resolve("reader-shm"));
                DeviceMemoryPool pool = new DeviceMemoryPool(exporter, 0, 4L * LENGTH, 100);
                DeviceMemoryPool readerPool = new DeviceMemoryPool(reader, 0, 1 << 20, 100);
                TieredShuffleStore store = new TieredShuffleStore(exporter, 0, pool, 4L * LENGTH, new LocalSpillDirectory(directory.resolve("spill"), 0))) {
            List<ShuffleBlockRef> refs = storeOnDevice(store);
            AtomicInteger borrows = new AtomicInteger();
            try (ShmBlockWriter shm = new ShmBlockWriter(transportShm);
                    TcpBlockServer server = BlockServers.builder(hostPath(store)).bind(LOOPBACK, 0).maxFrameBytes(16 << 20).sharedMemory(shm)
                            .deviceBlocks(devicePath(exporter, store, borrows)).start();
                    RoutingShuffleTransport routing = new RoutingShuffleTransport(dgx, place(nodeA, "GPU0"), new RoutePolicy(RoutePolicyConfig.defaults()),
                            new TcpShuffleTransport(10_000, 16 << 20), transportShm, new ShmBlockReader(transportShm, counters), Optional.empty(), "no NIC in this test",
                            counters, new PeerRouteLog(logged::add), Optional.of(new DeviceLanding(reader, readerPool)), 64L << 20, SparkCryptoSettings.none())) {
                PeerAddress peer = peer("11", server.port(), place(nodeA, "GPU1"), true);
                assertEquals(Route.PEER_GPU_D2H, routing.choose(peer).carrier(), routing.choose(peer).reason());

                assertEquals(List.of("PEER_GPU_D2H->HOST_STAGED"), fetchAndCompare(routing, peer, refs, "HOST_STAGED"), "the fetch reports its step");
                assertEquals(1, routing.fallbacks().count(Route.PEER_GPU_D2H, Route.HOST_STAGED), routing.fallbacks().counts().toString());
                assertEquals(1, routing.fallbacks().total());
                assertEquals(Route.HOST_STAGED, routing.choose(peer).carrier());
                assertEquals(2, logged.size(), "the first decision and the fallback, once: " + logged);
                String change = logged.get(1);
                assertTrue(change.contains("changed from PEER_GPU_D2H to HOST_STAGED") && change.contains("cannot open the exporter's IPC handle")
                        && change.contains("cudaIpcOpenMemHandle"), change);
                // The peer lends a block's device buffer once per IPC answer, and once more to stage it out over HOST_STAGED.
                int borrowsAfterFirst = borrows.get();
                assertTrue(borrowsAfterFirst > refs.size(), "the first fetch asked for IPC handles, then staged the blocks: " + borrowsAfterFirst);

                assertEquals(List.of(), fetchAndCompare(routing, peer, refs, "HOST_STAGED"), "no step on the second fetch");
                assertEquals(borrowsAfterFirst + refs.size(), borrows.get(), "the second fetch went straight to HOST_STAGED: one staging lease per block, no IPC export");
                assertEquals(1, routing.fallbacks().total(), "counted once per peer, not per fetch");
                assertEquals(2, logged.size(), "logged once per peer: " + logged);
                assertEquals(4L * LENGTH, counters.bytes(Route.HOST_STAGED), "both blocks, both fetches, staged through host memory");
                assertEquals(0, counters.bytes(Route.PEER_GPU_D2H));
                assertEquals(0, readerPool.allocator().allocatedBytes());
                assertEquals(0, reader.ipcMappings().open(), "nothing of the exporter stays mapped on the reader's side");

                // A probed view rebuilds the routing transport over a larger map with the same fallbacks: the peer's route is decided past the refusal.
                DeviceLanding landing = new DeviceLanding(reader, readerPool);
                List<String> rebuiltLog = new CopyOnWriteArrayList<>();
                try (RoutingShuffleTransport rebuilt = new RoutingShuffleTransport(dgx, place(nodeA, "GPU0"), new RoutePolicy(RoutePolicyConfig.defaults()),
                        new TcpShuffleTransport(10_000, 16 << 20), transportShm, new ShmBlockReader(transportShm, counters), Optional.empty(), "no NIC in this test",
                        counters, new PeerRouteLog(rebuiltLog::add), Optional.of(landing), Optional.of(RoutingShuffleTransport.deviceReader(landing, counters, 1 << 20)),
                        routing.fallbacks(), SparkCryptoSettings.none())) {
                    assertEquals(Route.HOST_STAGED, rebuilt.choose(peer).carrier(), rebuilt.choose(peer).reason());
                    int before = borrows.get();
                    assertEquals(List.of(), fetchAndCompare(rebuilt, peer, refs, "HOST_STAGED"), "decided past the refusal: no step taken");
                    assertEquals(before + refs.size(), borrows.get(), "no IPC attempt after the rebuild");
                    assertEquals(1, routing.fallbacks().total());
                    assertEquals(1, rebuiltLog.size(), rebuiltLog.toString());
                    assertTrue(rebuiltLog.get(0).contains(": HOST_STAGED (") && rebuiltLog.get(0).contains("fell back to HOST_STAGED"), rebuiltLog.get(0));
                }
            }
            for (ShuffleBlockRef ref : refs) {
                assertEquals(0, store.leasesOf(stored(ref)), "the exporter got back every lease it lent for the refused handle");
            }
        }
    }

    @Test
    void gpuMemoryTheNicCannotRegisterFallsBackToRdmaHostStagedOncePerPeer()
            throws Exception
    {
        ClusterTopology dgx = topology();
        String nodeA = dgx.nodes().get(0).hostname();
        String nodeB = dgx.nodes().get(1).hostname();
        // No nvidia_peermem on the exporter's simulated NIC: ibv_reg_mr of GPU memory fails.
        SimulatedVerbsProvider provider = new SimulatedVerbsProvider(new SimulatedNicOptions(false, 64 << 20, false, CmFault.NONE));
        VerbsBlocks serverNic = new VerbsBlocks(provider.openLoopbackDevice("sim_server", VERBS), VERBS, 64 << 10, Duration.ofSeconds(10));
        VerbsBlocks clientNic = new VerbsBlocks(provider.openLoopbackDevice("sim_client", VERBS), VERBS, 64 << 10, Duration.ofSeconds(10));
        List<String> logged = new CopyOnWriteArrayList<>();
        RouteCounters counters = new RouteCounters();
        Path transportShm = Files.createDirectories(directory.resolve("transport-shm"));
        try (DeviceRuntime runtime = simulated(directory.resolve("device-shm"));
                DeviceMemoryPool pool = new DeviceMemoryPool(runtime, 0, 4L * LENGTH, 100);
                DeviceMemoryPool readerPool = new DeviceMemoryPool(runtime, 0, 1 << 20, 100);
                TieredShuffleStore store = new TieredShuffleStore(runtime, 0, pool, 4L * LENGTH, new LocalSpillDirectory(directory.resolve("spill"), 0))) {
            List<ShuffleBlockRef> refs = storeOnDevice(store);
            AtomicInteger borrows = new AtomicInteger();
            try (TcpBlockServer server = BlockServers.builder(hostPath(store)).bind(LOOPBACK, 0).maxFrameBytes(16 << 20).verbs(serverNic)
                    .deviceBlocks(devicePath(runtime, store, borrows)).start();
                    RoutingShuffleTransport routing = new RoutingShuffleTransport(dgx, place(nodeA, "GPU0"), new RoutePolicy(RoutePolicyConfig.defaults()),
                            new TcpShuffleTransport(10_000, 16 << 20), transportShm, new ShmBlockReader(transportShm, counters), Optional.of(clientNic), "",
                            counters, new PeerRouteLog(logged::add), Optional.of(new DeviceLanding(runtime, readerPool)), 64L << 20, SparkCryptoSettings.none())) {
                PeerAddress peer = peer("12", server.port(), place(nodeB, "GPU0"), true);
                assertEquals(Route.GPUDIRECT_RDMA, routing.choose(peer).carrier(), routing.choose(peer).reason());

                assertEquals(List.of("GPUDIRECT_RDMA->RDMA_HOST_STAGED"), fetchAndCompare(routing, peer, refs, "RDMA_HOST_STAGED"), "the fetch reports its step");
                assertEquals(1, routing.fallbacks().count(Route.GPUDIRECT_RDMA, Route.RDMA_HOST_STAGED), routing.fallbacks().counts().toString());
                assertEquals(Route.RDMA_HOST_STAGED, routing.choose(peer).carrier());
                assertEquals(2, logged.size(), "the first decision and the fallback, once: " + logged);
                assertTrue(logged.get(1).contains("changed from GPUDIRECT_RDMA to RDMA_HOST_STAGED") && logged.get(1).contains("Cannot register the GPU memory"),
                        logged.get(1));
                int borrowsAfterFirst = borrows.get();

                assertEquals(List.of(), fetchAndCompare(routing, peer, refs, "RDMA_HOST_STAGED"));
                assertEquals(borrowsAfterFirst, borrows.get(), "the second fetch went straight to RDMA_HOST_STAGED: no GPU registration was tried");
                assertEquals(1, routing.fallbacks().total());
                assertEquals(2, logged.size(), "logged once per peer: " + logged);
                assertEquals(4L * LENGTH, counters.bytes(Route.RDMA_HOST_STAGED));
                assertEquals(0, counters.bytes(Route.GPUDIRECT_RDMA));
            }
            for (ShuffleBlockRef ref : refs) {
                assertEquals(0, store.leasesOf(stored(ref)), "the refused registration returned its lease");
                assertEquals(StorageTier.DEVICE, store.tierOf(stored(ref)));
            }
        }
        finally {
            serverNic.close();
        }
    }

    /** Returns the fallback steps the fetch reports (what the exchange's metrics count). */
    private List<String> fetchAndCompare(RoutingShuffleTransport routing, PeerAddress peer, List<ShuffleBlockRef> refs, String route)
            throws Exception
    {
        try (FetchedBlocks fetched = routing.fetch(peer, refs, allocator)) {
            for (int i = 0; i < refs.size(); i++) {
                assertEquals(route, fetched.routeOf(i), "block " + i);
                byte[] copy = new byte[(int) fetched.blocks().get(i).length()];
                fetched.blocks().get(i).buffer().getBytes(0, copy);
                assertArrayEquals(pattern(LENGTH, i + 1), copy, refs.get(i).toString());
            }
            return fetched.fallbacks();
        }
    }

    /** Two blocks the store keeps in (simulated) GPU memory. */
    private static List<ShuffleBlockRef> storeOnDevice(TieredShuffleStore store)
    {
        List<ShuffleBlockRef> refs = List.of(new ShuffleBlockRef(7, 70, 0), new ShuffleBlockRef(7, 71, 1));
        for (int i = 0; i < refs.size(); i++) {
            store.put(stored(refs.get(i)), ByteBuffer.wrap(pattern(LENGTH, i + 1)));
            assertEquals(StorageTier.DEVICE, store.tierOf(stored(refs.get(i))));
        }
        return refs;
    }

    private BlockSource hostPath(TieredShuffleStore store)
    {
        return ref -> {
            ByteBuffer bytes = store.read(stored(ref));
            ArrowBuf buffer = allocator.buffer(bytes.remaining());
            buffer.setBytes(0, bytes);
            return Optional.of(new BlockBytes(buffer, LENGTH));
        };
    }

    private static DeviceBlockSource devicePath(DeviceRuntime runtime, TieredShuffleStore store, AtomicInteger borrows)
    {
        return new DeviceBlockSource()
        {
            @Override
            public DeviceRuntime runtime()
            {
                return runtime;
            }

            @Override
            public Optional<BlockLease> borrow(ShuffleBlockRef block)
            {
                borrows.incrementAndGet();
                return store.tryBorrow(stored(block));
            }
        };
    }

    private static DeviceRuntime simulated(Path shm)
            throws Exception
    {
        Files.createDirectories(shm);
        return DeviceRuntime.create(new MapConfigSource(Map.of("spark.ferry.device", "simulated", "spark.ferry.device.simulated.capacity", "16m",
                "spark.ferry.device.simulated.shmDir", shm.toString())));
    }

    private static ClusterTopology topology()
    {
        return TopologyFileReader.load(Path.of("..", "examples", "topologies", "dgx-h100-ib-2node.json"));
    }

    private static PeerAddress peer(String executorId, int port, ExecutorPlace place, boolean device)
    {
        BlockManagerId location = PeerEndpoints.withEndpoints(BlockManagerId.apply(executorId, "localhost", 7000, scala.Option.empty()), port, Optional.of(place), device);
        return PeerEndpoints.tcpPeer(location).orElseThrow();
    }

    private static ExecutorPlace place(String node, String gpu)
    {
        return new ExecutorPlace(node, Optional.of(gpu));
    }

    private static StoredBlock stored(ShuffleBlockRef ref)
    {
        return new StoredBlock(ref.shuffleId(), ref.mapId(), ref.reduceId(), 0, ref.mapId());
    }

    private static byte[] pattern(int length, int seed)
    {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (i * 31 + seed);
        }
        return bytes;
    }
}
