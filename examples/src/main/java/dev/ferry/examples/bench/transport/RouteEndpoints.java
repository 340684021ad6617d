package dev.ferry.examples.bench.transport;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.pool.BlockLease;
import dev.ferry.device.pool.DeviceMemoryPool;
import dev.ferry.device.pool.LocalSpillDirectory;
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
import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.routing.BlockServers;
import dev.ferry.shuffle.transport.routing.PeerRoute;
import dev.ferry.shuffle.transport.routing.RoutingShuffleTransport;
import dev.ferry.shuffle.transport.auth.TcpAuth;
import dev.ferry.shuffle.transport.auth.SparkAuthSettings;
import dev.ferry.shuffle.transport.server.TcpBlockServer;
import dev.ferry.shuffle.transport.client.TcpShuffleTransport;
import dev.ferry.shuffle.transport.rdma.VerbsBlocks;
import dev.ferry.topology.file.TopologyFileReader;
import dev.ferry.topology.model.ClusterTopology;
import dev.ferry.topology.route.Route;
import dev.ferry.topology.route.RoutePolicy;
import dev.ferry.topology.route.RoutePolicyConfig;
import dev.ferry.shuffle.transport.TransportConfigKeys;
import dev.ferry.shuffle.transport.ipc.DeviceLanding;
import dev.ferry.shuffle.transport.shm.ShmBlockReader;
import dev.ferry.shuffle.transport.shm.ShmBlockWriter;
import dev.ferry.shuffle.transport.metrics.PeerRouteLog;
import dev.ferry.shuffle.transport.metrics.RouteCounters;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsSettings;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.CmFault;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.SimulatedNicOptions;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.SimulatedVerbsProvider;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.spark.storage.BlockManagerId;

/**
 * Two executors' worth of transport in one JVM, over the classes the shuffle itself uses: the
 * peer's {@link TcpBlockServer} (with shared memory, a simulated NIC and, for device routes, a
 * simulated GPU's {@link TieredShuffleStore}) and this executor's {@link RoutingShuffleTransport},
 * both placed in a topology file so that the route between them is the one being measured.
 * Host blocks are served by a {@link HostMapOutputStore} keeping them in shared memory, as an
 * executor placed in a topology does.
 */
final class RouteEndpoints
        implements AutoCloseable
{
    private static final VerbsSettings VERBS = new VerbsSettings(256, 16, 512, Integer.MAX_VALUE, Duration.ofSeconds(30));

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final List<ShuffleBlockRef> refs = new ArrayList<>();
    private final RoutingShuffleTransport reader;
    private final PeerAddress peer;

    /**
     * @param topology a file of examples/topologies
     * @param self this executor's place; {@code peerPlace} the serving peer's
     * @param deviceBlocks whether the peer's blocks live in (simulated) GPU memory
     * @param readerDevice whether this executor has a device runtime to land device routes in
     * @param peerProcess whether the peer runs in a process of its own ({@link DevicePeerProcess}: the CUDA IPC routes)
     */
    RouteEndpoints(Path repository, String topology, ExecutorPlace self, ExecutorPlace peerPlace, boolean deviceBlocks, boolean readerDevice, boolean peerProcess,
            int blocks, int blockBytes, BufferAllocator allocator, Path scratch, boolean encrypted)
            throws Exception
    {
        // Both ends authenticate and encrypt as under spark.authenticate and spark.network.crypto.enabled.
        TcpAuth auth = encrypted ? new TcpAuth(new SparkAuthSettings(true, "bench", Optional.of("bench-secret")), Duration.ofSeconds(30), true) : TcpAuth.none();
        Path shm = Files.createDirectories(scratch.resolve("shm"));
        ArrowBuf hostBlocks = allocator.buffer((long) blocks * blockBytes);
        resources.add(hostBlocks);
        BlockConsumer.fill(hostBlocks.memoryAddress(), (long) blocks * blockBytes, 0);
        Map<ShuffleBlockRef, Long> offsets = new LinkedHashMap<>();
        for (int i = 0; i < blocks; i++) {
            ShuffleBlockRef ref = new ShuffleBlockRef(1, i, 0);
            refs.add(ref);
            offsets.put(ref, (long) i * blockBytes);
        }
        DeviceRuntime runtime = null;
        TieredShuffleStore store = null;
        boolean localDeviceBlocks = deviceBlocks && !peerProcess;
        if (localDeviceBlocks || readerDevice) {
            long capacity = (long) blocks * blockBytes + 4L * blockBytes + (64L << 20);
            runtime = DeviceRuntime.create(new MapConfigSource(Map.of("spark.ferry.device", "simulated", "spark.ferry.device.simulated.capacity", Long.toString(capacity))));
            resources.add(0, runtime);
        }
        if (localDeviceBlocks) {
            DeviceMemoryPool pool = new DeviceMemoryPool(runtime, 0, (long) blocks * blockBytes + blockBytes, 100);
            store = new TieredShuffleStore(runtime, 0, pool, (long) blocks * blockBytes, new LocalSpillDirectory(scratch.resolve("spill"), 0));
            resources.add(0, pool);
            resources.add(0, store);
            for (ShuffleBlockRef ref : refs) {
                store.put(stored(ref), hostBlocks.nioBuffer(offsets.get(ref), blockBytes));
            }
        }
        TieredShuffleStore deviceStore = store;
        // Host blocks live where an executor with a topology keeps them: its host map output store, in shared memory.
        HostMapOutputStore hostStore = new HostMapOutputStore(allocator.newChildAllocator("bench-map-outputs", 0, Long.MAX_VALUE), (long) blocks * blockBytes,
                scratch.resolve("host-spill"), Optional.of(shm));
        resources.add(0, hostStore);
        if (!deviceBlocks) {
            for (ShuffleBlockRef ref : refs) {
                hostStore.commit(new MapOutputId(ref.shuffleId(), ref.mapId(), (int) ref.mapId(), 0), oneBlock(hostBlocks, offsets.get(ref), blockBytes));
            }
        }
        BlockSource source = ref -> {
            Long offset = offsets.get(ref);
            if (offset == null) {
                return Optional.empty();
            }
            if (deviceStore != null) {
                // A GPU block served through host memory (the staged routes): the store copies it down.
                ByteBuffer staged = deviceStore.read(stored(ref));
                ArrowBuf buffer = allocator.buffer(staged.remaining());
                buffer.setBytes(0, staged);
                return Optional.of(new BlockBytes(buffer, blockBytes));
            }
            return hostStore.open(ref.shuffleId(), ref.mapId(), ref.reduceId());
        };
        DeviceRuntime deviceRuntime = runtime;
        DeviceBlockSource devicePath = store == null ? null : new DeviceBlockSource()
        {
            @Override
            public DeviceRuntime runtime()
            {
                return deviceRuntime;
            }

            @Override
            public Optional<BlockLease> borrow(ShuffleBlockRef block)
            {
                return deviceStore.tryBorrow(stored(block));
            }
        };
        SimulatedVerbsProvider provider = new SimulatedVerbsProvider(new SimulatedNicOptions(true, 4L * blocks * blockBytes, false,
                CmFault.NONE));
        VerbsBlocks serverNic = new VerbsBlocks(provider.openLoopbackDevice("bench_server", VERBS), VERBS, 1 << 20, Duration.ofSeconds(30));
        VerbsBlocks readerNic = new VerbsBlocks(provider.openLoopbackDevice("bench_reader", VERBS), VERBS, 1 << 20, Duration.ofSeconds(30));
        // A stream (TCP) block travels as one frame: let a whole block through.
        long maxFrameBytes = Math.max(16L << 20, blockBytes + (1L << 20));
        resources.add(0, serverNic);
        int port;
        if (peerProcess) {
            PeerProcess child = new PeerProcess(blocks, blockBytes, shm);
            resources.add(0, child);
            port = child.port();
        }
        else {
            ShmBlockWriter writer = new ShmBlockWriter(shm, TransportConfigKeys.SHM_STAGING_BYTES.defaultValue());
            TcpBlockServer server = BlockServers.builder(source).bind(InetAddress.getLoopbackAddress(), 0)
                    .maxFrameBytes(maxFrameBytes).sharedMemory(writer).verbs(serverNic).auth(auth).deviceBlocks(devicePath).start();
            resources.add(0, writer);
            resources.add(0, server);
            port = server.port();
        }
        ClusterTopology cluster = TopologyFileReader.load(repository.resolve("examples/topologies").resolve(topology + ".json"));
        RouteCounters counters = new RouteCounters();
        Optional<DeviceLanding> landing = Optional.empty();
        if (readerDevice) {
            // The reading executor's own device pool, which device routes land its blocks in.
            DeviceMemoryPool readerPool = new DeviceMemoryPool(runtime, 0, 0, 100);
            resources.add(0, readerPool);
            landing = Optional.of(new DeviceLanding(runtime, readerPool));
        }
        reader = new RoutingShuffleTransport(cluster, self, new RoutePolicy(RoutePolicyConfig.defaults()), new TcpShuffleTransport(60_000, maxFrameBytes, auth), shm,
                new ShmBlockReader(shm, counters), Optional.of(readerNic), "", counters, new PeerRouteLog(), landing,
                TransportConfigKeys.HOST_LANDING_POOL_BYTES.defaultValue());
        resources.add(0, reader);
        // No place: the peer announced none, so the stream transport (TCP) carries its blocks.
        BlockManagerId location = PeerEndpoints.withEndpoints(BlockManagerId.apply("bench-peer", "localhost", 7000, scala.Option.empty()), port,
                Optional.ofNullable(peerPlace), deviceBlocks);
        peer = PeerEndpoints.tcpPeer(location).orElseThrow();
    }

    /** A map output of one block: {@code length} bytes of {@code source} from {@code offset}. */
    private static EncodedMapOutput oneBlock(ArrowBuf source, long offset, int length)
    {
        return new EncodedMapOutput()
        {
            @Override
            public int partitions()
            {
                return 1;
            }

            @Override
            public long blockLength(int partition)
            {
                return length;
            }

            @Override
            public void writeBlock(int partition, ByteBuffer target)
            {
                target.put(source.nioBuffer(offset, length));
            }
        };
    }

    private static StoredBlock stored(ShuffleBlockRef ref)
    {
        return new StoredBlock(ref.shuffleId(), ref.mapId(), ref.reduceId(), 0, ref.mapId());
    }

    PeerRoute choice()
    {
        return reader.choose(peer);
    }

    /** How long one fetch of every block took, alone and with the reader's pass over the bytes, and the route that carried them. */
    record Fetch(Route carried, long fetchNanos, long totalNanos)
    {
    }

    /** One fetch of every block, then one read of every fetched byte ({@link BlockConsumer}, which checks the pattern); checks their length. */
    Fetch fetchAll(BufferAllocator allocator, long expectedBytes)
            throws IOException
    {
        long start = System.nanoTime();
        try (var fetched = reader.fetch(peer, refs, allocator)) {
            long fetchedAt = System.nanoTime();
            long bytes = 0;
            long checksum = 0;
            for (int index = 0; index < fetched.blocks().size(); index++) {
                BlockBytes block = fetched.blocks().get(index);
                checksum += BlockConsumer.consume(block.buffer().memoryAddress(), block.length(), (long) index * block.length());
                bytes += block.length();
            }
            long end = System.nanoTime();
            if (bytes != expectedBytes) {
                throw new IOException("Fetched " + bytes + " bytes, expected " + expectedBytes);
            }
            if (checksum == 42) {
                // Keeps the JIT from dropping the reads; never true for the pattern.
                System.out.print("");
            }
            return new Fetch(Route.valueOf(fetched.routeOf(0)), fetchedAt - start, end - start);
        }
    }

    @Override
    public void close()
            throws Exception
    {
        for (AutoCloseable resource : resources) {
            resource.close();
        }
    }
}
