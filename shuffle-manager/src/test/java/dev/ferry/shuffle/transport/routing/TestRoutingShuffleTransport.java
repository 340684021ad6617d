package dev.ferry.shuffle.transport.routing;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

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
import dev.ferry.shuffle.store.EncodedMapOutput;
import dev.ferry.shuffle.store.HostMapOutputStore;
import dev.ferry.shuffle.store.MapOutputId;
import dev.ferry.shuffle.transport.BlockSource;
import dev.ferry.shuffle.transport.DeviceBlockSource;
import dev.ferry.shuffle.transport.FetchedBlocks;
import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.client.TcpShuffleTransport;
import dev.ferry.shuffle.transport.ipc.DeviceLanding;
import dev.ferry.shuffle.transport.metrics.DeviceRouteFallbacks;
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
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The routing transport over the shipped topology files: which route each (peer place, block
 * residence) gets and why, and the HOST_SHM, HOST_STAGED, RDMA and TCP data paths end to end against
 * a real block server in this JVM (simulated verbs), with every block counted on its route.
 */
class TestRoutingShuffleTransport
{
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final VerbsSettings VERBS = new VerbsSettings(64, 8, 256, 1 << 20, Duration.ofSeconds(10));

    @TempDir
    Path shmDirectory;

    private BufferAllocator allocator;
    private final Map<ShuffleBlockRef, byte[]> blocks = new ConcurrentHashMap<>();

    @BeforeEach
    void setUp()
    {
        allocator = new RootAllocator();
    }

    @AfterEach
    void tearDown()
    {
        assertEquals(0, allocator.getAllocatedMemory(), "every fetched, published or registered buffer was released");
        allocator.close();
    }

    private static ClusterTopology topology(String name)
    {
        return TopologyFileReader.load(Path.of("..", "examples", "topologies", name + ".json"));
    }

    private BlockSource source()
    {
        return ref -> {
            byte[] bytes = blocks.get(ref);
            if (bytes == null) {
                return Optional.empty();
            }
            ArrowBuf buffer = allocator.buffer(bytes.length);
            buffer.setBytes(0, bytes);
            return Optional.of(new BlockBytes(buffer, bytes.length));
        };
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

    private RoutingShuffleTransport transport(ClusterTopology cluster, ExecutorPlace self, Optional<VerbsBlocks> verbs, RouteCounters counters)
    {
        return new RoutingShuffleTransport(cluster, self, new RoutePolicy(RoutePolicyConfig.defaults()), new TcpShuffleTransport(10_000, 16 << 20), shmDirectory,
                new ShmBlockReader(shmDirectory, counters), verbs, "spark.ferry.transport.verbs=off", counters, new PeerRouteLog());
    }

    @Test
    void routesFollowTheTopologyAndWhereBlocksLive()
    {
        RouteCounters counters = new RouteCounters();
        ClusterTopology dgx = topology("dgx-h100-ib-2node");
        String nodeA = dgx.nodes().get(0).hostname();
        String nodeB = dgx.nodes().get(1).hostname();
        try (RoutingShuffleTransport routing = transport(dgx, place(nodeA, "GPU0"), Optional.empty(), counters)) {
            PeerRoute sameNodeHost = routing.choose(peer("1", 1000, place(nodeA, "GPU1"), false));
            assertEquals(Route.HOST_SHM, sameNodeHost.decided());
            assertEquals(Route.HOST_SHM, sameNodeHost.carrier());
            PeerRoute sameNodeDevice = routing.choose(peer("2", 1001, place(nodeA, "GPU1"), true));
            // Spark's reduce side wants the block in host memory: the policy decides one D->H out of the peer's GPU, not the pair's NVLink.
            assertEquals(Route.PEER_GPU_D2H, sameNodeDevice.decided(), sameNodeDevice.reason());
            assertTrue(sameNodeDevice.reason().contains("CPU consumer"), sameNodeDevice.reason());
            assertEquals(Route.HOST_STAGED, sameNodeDevice.carrier(), "no device runtime here to open IPC handles with: staged through host memory");
            assertTrue(sameNodeDevice.reason().contains("no device runtime"), sameNodeDevice.reason());
            PeerRoute crossNodeDevice = routing.choose(peer("3", 1002, place(nodeB, "GPU0"), true));
            assertEquals(Route.GPUDIRECT_RDMA, crossNodeDevice.decided(), crossNodeDevice.reason());
            assertEquals(Route.TCP, crossNodeDevice.carrier(), "no verbs layer here");
            assertTrue(crossNodeDevice.reason().contains("no verbs layer"), crossNodeDevice.reason());
            PeerRoute crossNodeHost = routing.choose(peer("4", 1003, place(nodeB, "GPU1"), false));
            assertEquals(Route.RDMA, crossNodeHost.decided(), crossNodeHost.reason());
            PeerRoute unknown = routing.choose(new PeerAddress("5", "localhost", 1004));
            assertEquals(Route.TCP, unknown.carrier());
        }
    }

    @Test
    void sameNodeBlocksGoThroughSharedMemoryAndOtherNodesOverRdma()
            throws Exception
    {
        ShuffleBlockRef first = new ShuffleBlockRef(2, 20, 0);
        ShuffleBlockRef second = new ShuffleBlockRef(2, 21, 3);
        blocks.put(first, pattern(70_000, 1));
        blocks.put(second, pattern(3_000_000, 2));
        ClusterTopology roce = topology("pcie-roce-2node");
        SimulatedVerbsProvider provider = new SimulatedVerbsProvider(new SimulatedNicOptions(false, 1 << 20, false, CmFault.NONE));
        VerbsBlocks serverNic = new VerbsBlocks(provider.openLoopbackDevice("sim_server", VERBS), VERBS, 64 << 10, Duration.ofSeconds(10));
        VerbsBlocks clientNic = new VerbsBlocks(provider.openLoopbackDevice("sim_client", VERBS), VERBS, 64 << 10, Duration.ofSeconds(10));
        RouteCounters counters = new RouteCounters();
        try (ShmBlockWriter shm = new ShmBlockWriter(shmDirectory);
                TcpBlockServer server = BlockServers.builder(source()).bind(LOOPBACK, 0)
                        .maxFrameBytes(16 << 20).sharedMemory(shm).verbs(serverNic).start();
                RoutingShuffleTransport routing = transport(roce, place("pcie-a", "GPU0"), Optional.of(clientNic), counters)) {
            List<ShuffleBlockRef> refs = List.of(first, second);
            for (PeerAddress peer : List.of(peer("1", server.port(), place("pcie-a", "GPU1"), false), peer("2", server.port(), place("pcie-a", "GPU2"), true),
                    peer("3", server.port(), place("pcie-b", "GPU0"), false), peer("4", server.port(), place("pcie-b", "GPU0"), true))) {
                try (FetchedBlocks fetched = routing.fetch(peer, refs, allocator)) {
                    for (int i = 0; i < refs.size(); i++) {
                        byte[] copy = new byte[(int) fetched.blocks().get(i).length()];
                        fetched.blocks().get(i).buffer().getBytes(0, copy);
                        assertArrayEquals(blocks.get(refs.get(i)), copy, fetched.route() + " " + refs.get(i));
                    }
                }
            }
            // Each fetch ends with FetchDone: the server lets go of the files it published without waiting for
            // another request on the idle pooled connection.
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (shm.publishedCount() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(0, shm.publishedCount(), "published blocks are released once the reader has taken them");
            long both = 70_000 + 3_000_000;
            assertEquals(both, counters.bytes(Route.HOST_SHM));
            assertEquals(both, counters.bytes(Route.HOST_STAGED));
            assertEquals(both, counters.bytes(Route.RDMA));
            assertEquals(both, counters.bytes(Route.RDMA_HOST_STAGED));
            assertEquals(0, counters.bytes(Route.TCP));
            assertEquals(2, counters.blocks(Route.RDMA));

            // A block the peer does not have is an error naming the peer, never data.
            PeerAddress remote = peer("3", server.port(), place("pcie-b", "GPU0"), false);
            // It says the route it took and blames the block, as the reader needs for Spark's FetchFailedException.
            ShuffleBlockRef missing = new ShuffleBlockRef(2, 99, 0);
            dev.ferry.shuffle.transport.BlockFetchException failure = assertThrows(dev.ferry.shuffle.transport.BlockFetchException.class,
                    () -> routing.fetch(remote, List.of(missing), allocator));
            assertTrue(failure.getMessage().startsWith("RDMA route: "), failure.getMessage());
            assertEquals(remote, failure.peer());
            assertEquals(java.util.Optional.of(missing), failure.block(), failure.getMessage());
        }
        finally {
            serverNic.close();
        }
        try (Stream files = new Stream(shmDirectory)) {
            assertEquals(0, files.count(), "every published shared-memory block was released");
        }
    }

    @Test
    void gpuBlocksCrossNodesByGpudirectRdmaAndSpilledOnesHostStaged()
            throws Exception
    {
        int length = 256 * 1024;
        ShuffleBlockRef spilledRef = new ShuffleBlockRef(3, 30, 0);
        ShuffleBlockRef residentRef = new ShuffleBlockRef(3, 31, 0);
        ClusterTopology dgx = topology("dgx-h100-ib-2node");
        String nodeA = dgx.nodes().get(0).hostname();
        String nodeB = dgx.nodes().get(1).hostname();
        SimulatedVerbsProvider provider = new SimulatedVerbsProvider(new SimulatedNicOptions(true, 64 << 20, false, CmFault.NONE));
        VerbsBlocks serverNic = new VerbsBlocks(provider.openLoopbackDevice("sim_server", VERBS), VERBS, 64 << 10, Duration.ofSeconds(10));
        VerbsBlocks clientNic = new VerbsBlocks(provider.openLoopbackDevice("sim_client", VERBS), VERBS, 64 << 10, Duration.ofSeconds(10));
        RouteCounters counters = new RouteCounters();
        long fallbacksBefore = DeviceRouteFallbacks.blocks();
        try (DeviceRuntime runtime = DeviceRuntime.create(new MapConfigSource(Map.of("spark.ferry.device", "simulated", "spark.ferry.device.simulated.capacity", "16m")));
                DeviceMemoryPool pool = new DeviceMemoryPool(runtime, 0, length, 100);
                // The reading executor's device store pool, which its landing buffers count in.
                DeviceMemoryPool readerPool = new DeviceMemoryPool(runtime, 0, length, 100);
                TieredShuffleStore store = new TieredShuffleStore(runtime, 0, pool, 4L * length, new LocalSpillDirectory(shmDirectory.resolve("spill"), 0))) {
            // A one-block pool: the second put spills the first to host memory.
            store.put(stored(spilledRef), ByteBuffer.wrap(pattern(length, 5)));
            store.put(stored(residentRef), ByteBuffer.wrap(pattern(length, 6)));
            assertEquals(StorageTier.HOST, store.tierOf(stored(spilledRef)));
            BlockSource hostPath = ref -> {
                ByteBuffer bytes = store.read(stored(ref));
                ArrowBuf buffer = allocator.buffer(bytes.remaining());
                buffer.setBytes(0, bytes);
                return Optional.of(new BlockBytes(buffer, length));
            };
            DeviceBlockSource devicePath = new DeviceBlockSource()
            {
                @Override
                public DeviceRuntime runtime()
                {
                    return runtime;
                }

                @Override
                public Optional<BlockLease> borrow(ShuffleBlockRef block)
                {
                    return store.tryBorrow(stored(block));
                }
            };
            try (TcpBlockServer server = BlockServers.builder(hostPath).bind(LOOPBACK, 0)
                    .maxFrameBytes(16 << 20).verbs(serverNic).deviceBlocks(devicePath).start();
                    RoutingShuffleTransport routing = new RoutingShuffleTransport(dgx, place(nodeA, "GPU0"), new RoutePolicy(RoutePolicyConfig.defaults()),
                            new TcpShuffleTransport(10_000, 16 << 20), shmDirectory, new ShmBlockReader(shmDirectory, counters), Optional.of(clientNic), "",
                            counters, new PeerRouteLog(), Optional.of(new DeviceLanding(runtime, readerPool)), 64L << 20)) {
                PeerAddress peer = peer("7", server.port(), place(nodeB, "GPU0"), true);
                PeerRoute choice = routing.choose(peer);
                assertEquals(Route.GPUDIRECT_RDMA, choice.carrier(), choice.reason());
                List<ShuffleBlockRef> refs = List.of(residentRef, spilledRef);
                try (FetchedBlocks fetched = routing.fetch(peer, refs, allocator)) {
                    assertEquals("GPUDIRECT_RDMA", fetched.routeOf(0));
                    assertEquals("RDMA_HOST_STAGED", fetched.routeOf(1), "a block spilled off the peer's GPU travels through host memory");
                    for (int i = 0; i < refs.size(); i++) {
                        byte[] copy = new byte[(int) fetched.blocks().get(i).length()];
                        fetched.blocks().get(i).buffer().getBytes(0, copy);
                        assertArrayEquals(pattern(length, i == 0 ? 6 : 5), copy, refs.get(i).toString());
                    }
                }
                assertEquals(length, counters.bytes(Route.GPUDIRECT_RDMA));
                assertEquals(length, counters.bytes(Route.RDMA_HOST_STAGED));
                assertEquals(fallbacksBefore + 1, DeviceRouteFallbacks.blocks());
                assertEquals(0, readerPool.allocator().peakBytes(), "the GPUDIRECT_RDMA block went straight to host memory, never through the reader's GPU");
            }
            assertEquals(0, store.leasesOf(stored(residentRef)), "the server returned every lease");
            assertEquals(StorageTier.DEVICE, store.tierOf(stored(residentRef)));
        }
        finally {
            serverNic.close();
        }
    }

    /**
     * A peer announced as keeping its blocks in GPU memory whose server has none there (its device
     * store is not running, or the announcement is stale): the reader takes the device route the
     * topology gives, and the peer answers each block with a location in host memory (shared
     * memory for NVLINK, host remote slices for GPUDIRECT_RDMA). The blocks arrive whole, are counted
     * on the route that carried them and recorded as device-route fallbacks; the connection is
     * never dropped for asking.
     */
    @Test
    void deviceRoutesFollowWhereThePeersBlocksActuallyAre()
            throws Exception
    {
        ShuffleBlockRef first = new ShuffleBlockRef(4, 40, 0);
        ShuffleBlockRef second = new ShuffleBlockRef(4, 41, 1);
        blocks.put(first, pattern(90_000, 7));
        blocks.put(second, pattern(20_000, 8));
        ClusterTopology dgx = topology("dgx-h100-ib-2node");
        String nodeA = dgx.nodes().get(0).hostname();
        String nodeB = dgx.nodes().get(1).hostname();
        SimulatedVerbsProvider provider = new SimulatedVerbsProvider(new SimulatedNicOptions(true, 64 << 20, false, CmFault.NONE));
        VerbsBlocks serverNic = new VerbsBlocks(provider.openLoopbackDevice("sim_server", VERBS), VERBS, 64 << 10, Duration.ofSeconds(10));
        VerbsBlocks clientNic = new VerbsBlocks(provider.openLoopbackDevice("sim_client", VERBS), VERBS, 64 << 10, Duration.ofSeconds(10));
        RouteCounters counters = new RouteCounters();
        long fallbacksBefore = DeviceRouteFallbacks.blocks();
        try (DeviceRuntime runtime = DeviceRuntime.create(new MapConfigSource(Map.of("spark.ferry.device", "simulated", "spark.ferry.device.simulated.capacity", "16m")));
                DeviceMemoryPool readerPool = new DeviceMemoryPool(runtime, 0, 1 << 20, 100);
                ShmBlockWriter shm = new ShmBlockWriter(shmDirectory);
                TcpBlockServer server = BlockServers.builder(source()).bind(LOOPBACK, 0).maxFrameBytes(16 << 20).sharedMemory(shm).verbs(serverNic).start();
                RoutingShuffleTransport routing = new RoutingShuffleTransport(dgx, place(nodeA, "GPU0"), new RoutePolicy(RoutePolicyConfig.defaults()),
                        new TcpShuffleTransport(10_000, 16 << 20), shmDirectory, new ShmBlockReader(shmDirectory, counters), Optional.of(clientNic), "",
                        counters, new PeerRouteLog(), Optional.of(new DeviceLanding(runtime, readerPool)), 64L << 20)) {
            List<ShuffleBlockRef> refs = List.of(first, second);
            PeerAddress sameNode = peer("8", server.port(), place(nodeA, "GPU1"), true);
            PeerAddress otherNode = peer("9", server.port(), place(nodeB, "GPU0"), true);
            assertEquals(Route.PEER_GPU_D2H, routing.choose(sameNode).carrier(), routing.choose(sameNode).reason());
            assertEquals(Route.GPUDIRECT_RDMA, routing.choose(otherNode).carrier(), routing.choose(otherNode).reason());
            for (PeerAddress peer : List.of(sameNode, otherNode)) {
                try (FetchedBlocks fetched = routing.fetch(peer, refs, allocator)) {
                    for (int i = 0; i < refs.size(); i++) {
                        assertEquals(peer == sameNode ? "HOST_STAGED" : "RDMA_HOST_STAGED", fetched.routeOf(i), "block " + i + " of executor " + peer.executorId());
                        byte[] copy = new byte[(int) fetched.blocks().get(i).length()];
                        fetched.blocks().get(i).buffer().getBytes(0, copy);
                        assertArrayEquals(blocks.get(refs.get(i)), copy, refs.get(i).toString());
                    }
                }
            }
            long both = 90_000 + 20_000;
            assertEquals(both, counters.bytes(Route.HOST_STAGED));
            assertEquals(both, counters.bytes(Route.RDMA_HOST_STAGED));
            assertEquals(0, counters.bytes(Route.NVLINK));
            assertEquals(0, counters.bytes(Route.GPUDIRECT_RDMA));
            assertEquals(fallbacksBefore + 4, DeviceRouteFallbacks.blocks(), "every block a device route could not carry is counted");
        }
        finally {
            serverNic.close();
        }
    }

    private static StoredBlock stored(ShuffleBlockRef ref)
    {
        return new StoredBlock(ref.shuffleId(), ref.mapId(), ref.reduceId(), 0, ref.mapId());
    }

    /**
     * A peer whose host store keeps map outputs in shared memory answers HOST_SHM with their place
     * there (no copy into a file per fetch); the reader maps large blocks and copies small ones,
     * and the bytes are the store's. When the peer leaves, its pooled connection is closed and its
     * route forgotten.
     */
    @Test
    void blocksStoredInSharedMemoryAreServedWithoutACopyAndADepartedPeerIsDropped()
            throws Exception
    {
        ClusterTopology roce = topology("pcie-roce-2node");
        RouteCounters counters = new RouteCounters();
        byte[] large = pattern((int) ShmBlockReader.MAP_MIN_BYTES * 3, 5);
        byte[] small = pattern(1000, 6);
        try (HostMapOutputStore store = new HostMapOutputStore(allocator.newChildAllocator("peer-store", 0, Long.MAX_VALUE), 64 << 20, shmDirectory.resolve("spill"),
                Optional.of(shmDirectory));
                TcpBlockServer server = BlockServers.builder(ref -> store.open(ref.shuffleId(), ref.mapId(), ref.reduceId())).bind(LOOPBACK, 0)
                        .maxFrameBytes(16 << 20).sharedMemory(new ShmBlockWriter(shmDirectory)).start();
                RoutingShuffleTransport routing = transport(roce, place("pcie-a", "GPU0"), Optional.empty(), counters)) {
            store.commit(new MapOutputId(4, 40, 0, 1), new EncodedMapOutput()
            {
                @Override
                public int partitions()
                {
                    return 2;
                }

                @Override
                public long blockLength(int partition)
                {
                    return partition == 0 ? small.length : large.length;
                }

                @Override
                public void writeBlock(int partition, ByteBuffer target)
                {
                    target.duplicate().put(partition == 0 ? small : large);
                }
            });
            PeerAddress peer = peer("7", server.port(), place("pcie-a", "GPU1"), false);
            List<ShuffleBlockRef> refs = List.of(new ShuffleBlockRef(4, 40, 0), new ShuffleBlockRef(4, 40, 1));
            try (FetchedBlocks fetched = routing.fetch(peer, refs, allocator)) {
                assertEquals("HOST_SHM", fetched.route());
                byte[] first = new byte[small.length];
                fetched.blocks().get(0).buffer().getBytes(0, first);
                assertArrayEquals(small, first);
                byte[] second = new byte[large.length];
                fetched.blocks().get(1).buffer().getBytes(0, second);
                assertArrayEquals(large, second);
            }
            assertEquals(0, server.publishedCopies(), "served from the store's shared memory, not copied into a file per fetch");
            assertEquals(small.length + large.length, counters.bytes(Route.HOST_SHM));
            assertEquals(1, server.openConnections());

            assertEquals(1, routing.peerLeft("7"), "the departed peer's pooled connection");
            assertEquals(0, routing.peerLeft("7"), "nothing left to close the second time");
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (server.openConnections() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(0, server.openConnections(), "the peer saw the connection close");
        }
        try (Stream files = new Stream(shmDirectory)) {
            assertEquals(0, files.count(), "the output's shared-memory file went with the store");
        }
    }

    private static byte[] pattern(int length, int seed)
    {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (i * 13 + seed);
        }
        return bytes;
    }

    private record Stream(Path directory)
            implements AutoCloseable
    {
        long count()
                throws java.io.IOException
        {
            try (java.util.stream.Stream<Path> files = Files.list(directory)) {
                return files.count();
            }
        }

        @Override
        public void close()
        {
        }
    }
}
