package dev.ferry.shuffle.transport.contract;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

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
import dev.ferry.shuffle.transport.BlockSource;
import dev.ferry.shuffle.transport.DeviceBlockSource;
import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.ShuffleTransport;
import dev.ferry.shuffle.transport.client.TcpShuffleTransport;
import dev.ferry.shuffle.transport.ipc.DeviceBlockReader;
import dev.ferry.shuffle.transport.ipc.DeviceLanding;
import dev.ferry.shuffle.transport.metrics.PeerRouteLog;
import dev.ferry.shuffle.transport.metrics.RouteCounters;
import dev.ferry.shuffle.transport.rdma.VerbsBlocks;
import dev.ferry.shuffle.transport.rdma.verbs.Access;
import dev.ferry.shuffle.transport.rdma.verbs.ConnectionToken;
import dev.ferry.shuffle.transport.rdma.verbs.ReadTarget;
import dev.ferry.shuffle.transport.rdma.verbs.RegistrableMemory;
import dev.ferry.shuffle.transport.rdma.verbs.Registration;
import dev.ferry.shuffle.transport.rdma.verbs.RemoteReader;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsConnection;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsDevice;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsException;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsProvider;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsSettings;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.SimulatedDevice;
import dev.ferry.shuffle.transport.routing.BlockServers;
import dev.ferry.shuffle.transport.routing.RoutingShuffleTransport;
import dev.ferry.shuffle.transport.server.TcpBlockServer;
import dev.ferry.shuffle.transport.shm.ShmBlockHandle;
import dev.ferry.shuffle.transport.shm.ShmBlockReader;
import dev.ferry.shuffle.transport.shm.ShmBlockWriter;
import dev.ferry.shuffle.transport.wire.FrameReader;
import dev.ferry.shuffle.transport.wire.RemoteSlice;
import dev.ferry.topology.file.TopologyFileReader;
import dev.ferry.topology.model.ClusterTopology;
import dev.ferry.topology.route.RoutePolicy;
import dev.ferry.topology.route.RoutePolicyConfig;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.spark.storage.BlockManagerId;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Contract endpoints in one JVM over the real transport classes the shuffle uses: a
 * {@link TcpBlockServer} serving {@link ContractBlocks} from host memory or from a simulated GPU's
 * {@link TieredShuffleStore}, and a reader that is either the plain {@link TcpShuffleTransport} or a
 * {@link RoutingShuffleTransport} placed in a topology so that its route to the peer is the family's.
 */
final class RoutedEndpoints
        implements ContractEndpoints
{
    static final VerbsSettings VERBS = new VerbsSettings(64, 8, 256, 1 << 20, Duration.ofSeconds(10));
    static final Map<String, String> DEVICE_CONFIG = Map.of("spark.ferry.device", "simulated", "spark.ferry.device.simulated.capacity", "96m");
    private static final int TIMEOUT_MILLIS = 20_000;

    /**
     * How to wire one family. {@code topology} null: the plain stream transport; else the routing
     * transport at {@code self}, the peer at {@code peer}. {@code nics}: verbs devices for server and
     * reader (null: no RDMA). {@code deviceBlocks}: blocks in a simulated GPU. {@code proxyFault}: a
     * {@link FaultyProxy} between reader and server at byte {@code proxyTriggerAt}.
     */
    record Wiring(String topology, ExecutorPlace self, ExecutorPlace peer, boolean deviceBlocks, NicFactory nics, ContractFault proxyFault, long proxyTriggerAt)
    {
    }

    /** Opens a verbs device on each call (the server's first). */
    @FunctionalInterface
    interface NicFactory
    {
        VerbsDevice open(String name)
                throws Exception;
    }

    private final Wiring wiring;
    private final ContractSecurity security;
    private final Path directory;
    private final BufferAllocator serverAllocator = new RootAllocator();
    private final ShmBlockWriter shmWriter;
    private final DeviceRuntime runtime;
    private final DeviceMemoryPool pool;
    /** The reading executor's pool, where device routes land blocks (another executor's than the store's). */
    private final DeviceMemoryPool landingPool;
    private final TieredShuffleStore store;
    private final VerbsDevice serverNicDevice;
    private final VerbsBlocks serverNic;
    private final TcpBlockServer server;
    private final FaultyProxy proxy;
    private final PeerAddress peer;
    private final ShuffleTransport reader;
    private final List<ShuffleTransport> extraReaders = new ArrayList<>();
    private final List<DeviceConsumerSide> deviceConsumers = new ArrayList<>();
    private boolean closed;
    private boolean released;

    RoutedEndpoints(Wiring wiring, ContractSecurity security, Path directory)
            throws Exception
    {
        this.wiring = wiring;
        this.security = security;
        this.directory = directory;
        Files.createDirectories(directory.resolve("shm"));
        Map<ShuffleBlockRef, byte[]> blocks = ContractBlocks.all(!wiring.deviceBlocks());
        this.shmWriter = new ShmBlockWriter(directory.resolve("shm"), 64L << 20);
        if (wiring.deviceBlocks()) {
            runtime = DeviceRuntime.create(new MapConfigSource(DEVICE_CONFIG));
            pool = new DeviceMemoryPool(runtime, 0, 32L << 20, 100);
            landingPool = new DeviceMemoryPool(runtime, 0, 32L << 20, 100);
            store = new TieredShuffleStore(runtime, 0, pool, 32L << 20, new LocalSpillDirectory(directory.resolve("spill"), 0));
            for (Map.Entry<ShuffleBlockRef, byte[]> block : blocks.entrySet()) {
                store.put(stored(block.getKey()), ByteBuffer.wrap(block.getValue()));
            }
        }
        else {
            runtime = null;
            pool = null;
            landingPool = null;
            store = null;
        }
        BlockSource source = ref -> {
            byte[] bytes = blocks.get(ref);
            if (bytes == null) {
                return Optional.empty();
            }
            ArrowBuf buffer = serverAllocator.buffer(Math.max(bytes.length, 1));
            buffer.setBytes(0, bytes);
            return Optional.of(new BlockBytes(buffer, bytes.length));
        };
        DeviceBlockSource devicePath = store == null ? null : new DeviceBlockSource()
        {
            @Override
            public DeviceRuntime runtime()
            {
                return runtime;
            }

            @Override
            public Optional<BlockLease> borrow(ShuffleBlockRef block)
            {
                return blocks.containsKey(block) ? store.tryBorrow(stored(block)) : Optional.empty();
            }
        };
        serverNicDevice = wiring.nics() == null ? null : wiring.nics().open("contract_server");
        serverNic = serverNicDevice == null ? null : new VerbsBlocks(serverNicDevice, VERBS, 256 << 10, Duration.ofSeconds(20));
        // As FerryShuffleRuntime wires a server: no shared memory under spark.io.encryption.enabled, no NIC under spark.network.crypto.enabled.
        server = BlockServers.builder(source).bind(InetAddress.getLoopbackAddress(), 0).maxFrameBytes(16 << 20)
                .sharedMemory(security.crypto().ioEncryption() ? null : shmWriter)
                .verbs(security.crypto().networkCrypto() ? null : serverNic)
                .auth(security.tcpAuth())
                .deviceBlocks(devicePath)
                .start();
        proxy = wiring.proxyFault() == ContractFault.NONE ? null : new FaultyProxy(server.port(), wiring.proxyFault(), wiring.proxyTriggerAt());
        int port = proxy == null ? server.port() : proxy.port();
        BlockManagerId location = PeerEndpoints.withEndpoints(BlockManagerId.apply("peer-1", "localhost", 7000, scala.Option.empty()), port,
                Optional.ofNullable(wiring.peer()), wiring.deviceBlocks());
        peer = PeerEndpoints.tcpPeer(location).orElseThrow();
        reader = newReader(security, "contract_reader");
    }

    private static StoredBlock stored(ShuffleBlockRef ref)
    {
        return new StoredBlock(ref.shuffleId(), ref.mapId(), ref.reduceId(), 0, ref.mapId());
    }

    private ShuffleTransport newReader(ContractSecurity readerSecurity, String nicName)
            throws Exception
    {
        TcpShuffleTransport stream = new TcpShuffleTransport(TIMEOUT_MILLIS, 16 << 20, readerSecurity.tcpAuth());
        if (wiring.topology() == null) {
            return stream;
        }
        ClusterTopology cluster = TopologyFileReader.load(Path.of("..", "examples", "topologies", wiring.topology() + ".json"));
        Optional<VerbsBlocks> nic = wiring.nics() == null ? Optional.empty()
                : Optional.of(new VerbsBlocks(wiring.nics().open(nicName), VERBS, 256 << 10, Duration.ofSeconds(20)));
        Path shm = directory.resolve("shm");
        RouteCounters counters = new RouteCounters();
        return new RoutingShuffleTransport(cluster, wiring.self(), new RoutePolicy(RoutePolicyConfig.defaults()), stream, shm, new ShmBlockReader(shm, counters), nic,
                "no verbs layer in this contract family", counters, new PeerRouteLog(), Optional.ofNullable(runtime).map(device -> new DeviceLanding(device, landingPool)), 64L << 20,
                readerSecurity.crypto());
    }

    /**
     * What a device consumer on the reading executor fetches into its GPU with: its own stream
     * connections, the landing pool on its GPU and the IPC reader over it, its NIC where the wiring
     * has NICs, and counters of its own. Closed with these endpoints.
     */
    record DeviceConsumerSide(TcpShuffleTransport stream, DeviceLanding landing, DeviceBlockReader reader, Optional<VerbsBlocks> nic, ShmBlockReader staged,
            RouteCounters counters, BufferAllocator staging)
            implements AutoCloseable
    {
        @Override
        public void close()
        {
            stream.close();
            reader.close();
            nic.ifPresent(VerbsBlocks::close);
            staging.close();
        }
    }

    DeviceConsumerSide deviceConsumer(String nicName)
            throws Exception
    {
        if (runtime == null) {
            throw new IllegalStateException("a device consumer needs device blocks in the wiring");
        }
        RouteCounters counters = new RouteCounters();
        DeviceLanding landing = new DeviceLanding(runtime, landingPool);
        Optional<VerbsBlocks> nic = wiring.nics() == null ? Optional.empty()
                : Optional.of(new VerbsBlocks(wiring.nics().open(nicName), VERBS, 256 << 10, Duration.ofSeconds(20)));
        DeviceConsumerSide side = new DeviceConsumerSide(new TcpShuffleTransport(TIMEOUT_MILLIS, 16 << 20, security.tcpAuth()), landing,
                RoutingShuffleTransport.deviceReader(landing, counters, 0), nic, new ShmBlockReader(directory.resolve("shm"), new RouteCounters()), counters,
                new RootAllocator());
        deviceConsumers.add(side);
        return side;
    }

    /** {@code buffer}'s bytes, copied back to host memory (for comparisons). */
    byte[] hostCopy(dev.ferry.device.memory.DeviceBuffer buffer)
    {
        return hostCopy(runtime, buffer);
    }

    /** {@code buffer}'s bytes in {@code runtime}'s device memory, copied back to host memory (for comparisons). */
    static byte[] hostCopy(DeviceRuntime runtime, dev.ferry.device.memory.DeviceBuffer buffer)
    {
        ByteBuffer host = ByteBuffer.allocateDirect(Math.toIntExact(buffer.length()));
        try (dev.ferry.device.DeviceStream stream = runtime.newStream(buffer.location().device())) {
            stream.copyToHost(buffer, 0, host);
            stream.synchronize();
        }
        byte[] bytes = new byte[host.capacity()];
        host.rewind().get(bytes);
        return bytes;
    }

    @Override
    public PeerAddress peer()
    {
        return peer;
    }

    @Override
    public ShuffleTransport reader()
    {
        return reader;
    }

    @Override
    public ShuffleTransport reader(Optional<String> readerSecret)
            throws Exception
    {
        ShuffleTransport extra = newReader(security.withSecret(readerSecret), "contract_reader_" + extraReaders.size());
        extraReaders.add(extra);
        return extra;
    }

    @Override
    public int connectionsAccepted()
    {
        return server.acceptedConnections();
    }

    @Override
    public byte[] captured()
    {
        return proxy == null ? new byte[0] : proxy.captured();
    }

    @Override
    public long blocksOpened()
    {
        return server.blocksOpened();
    }

    @Override
    public long failuresLogged()
    {
        return server.failures().logged();
    }

    @Override
    public Exception readOutOfBounds()
            throws Exception
    {
        if (serverNicDevice != null) {
            return readBeyondRegion();
        }
        if (wiring.topology() != null) {
            return readBeyondSharedMemory();
        }
        // The stream's framing: a frame longer than the limit is refused before anything is allocated.
        ByteBuffer frame = ByteBuffer.allocate(16).putInt((16 << 20) + 1).put((byte) 2).flip();
        try {
            new FrameReader(new java.io.ByteArrayInputStream(frame.array()), 16 << 20, dev.ferry.shuffle.transport.wire.MessageType.RESPONSES).read();
            return null;
        }
        catch (IOException e) {
            return e;
        }
    }

    @Override
    public int unadmittedQueuePairs()
            throws Exception
    {
        if (serverNicDevice == null) {
            return -1;
        }
        int queuePairs = 0;
        try (VerbsDevice stranger = wiring.nics().open("contract_stranger")) {
            ConnectionToken used = serverNicDevice.admissions().issue(0, stranger.listenAddress().getAddress().getHostAddress());
            stranger.connect(serverNicDevice.listenAddress(), Duration.ofSeconds(10), used).close();
            byte[] guessed = new byte[ConnectionToken.BYTES];
            new java.security.SecureRandom().nextBytes(guessed);
            for (ConnectionToken token : List.of(new ConnectionToken(new byte[ConnectionToken.BYTES]), new ConnectionToken(guessed), used)) {
                try (VerbsConnection connection = stranger.connect(serverNicDevice.listenAddress(), Duration.ofSeconds(10), token)) {
                    queuePairs++;
                }
                catch (VerbsException refused) {
                    // Rejected by the serving NIC's listener before a queue pair existed: what must happen.
                }
            }
        }
        return queuePairs;
    }

    /** A READ one byte past a registered region of the serving NIC: the NIC refuses it (REM_ACCESS_ERR). */
    private Exception readBeyondRegion()
            throws Exception
    {
        ByteBuffer served = ByteBuffer.allocateDirect(4096);
        Registration region = serverNicDevice.protectionDomain().register(RegistrableMemory.host(served), Access.remoteReadable());
        try (VerbsDevice readerNic = wiring.nics().open("contract_bounds")) {
            ByteBuffer landing = ByteBuffer.allocateDirect(4096);
            Registration sink = readerNic.protectionDomain().register(RegistrableMemory.host(landing), Access.readSink());
            try (VerbsConnection connection = readerNic.connect(serverNicDevice.listenAddress(), Duration.ofSeconds(10),
                    serverNicDevice.admissions().issue(0, readerNic.listenAddress().getAddress().getHostAddress()))) {
                RemoteSlice slice = region.remoteSlices(0, 4096).get(0);
                RemoteSlice beyond = new RemoteSlice(0, slice.address() + 1, slice.length(), slice.rkey());
                new RemoteReader(connection, VERBS, 4096).read(List.of(new ReadTarget(beyond, 0)), sink, Duration.ofSeconds(10));
                return null;
            }
            catch (Exception e) {
                return e;
            }
            finally {
                sink.deregister();
            }
        }
        finally {
            region.deregister();
        }
    }

    /** A shared-memory handle one byte longer than the published file: the reader refuses it. */
    private Exception readBeyondSharedMemory()
    {
        ByteBuffer block = ByteBuffer.allocateDirect(1000);
        ShmBlockHandle handle = shmWriter.publish(block);
        try {
            ShmBlockHandle longer = new ShmBlockHandle(handle.fileName(), handle.offset(), handle.length() + 1);
            new ShmBlockReader(directory.resolve("shm"), new RouteCounters()).read(longer, ByteBuffer.allocate(1001));
            return null;
        }
        catch (RuntimeException e) {
            return e;
        }
        finally {
            shmWriter.release(handle);
        }
    }

    @Override
    public synchronized void close()
    {
        if (closed) {
            return;
        }
        closed = true;
        reader.close();
        extraReaders.forEach(ShuffleTransport::close);
        if (proxy != null) {
            proxy.close();
        }
        server.close();
        if (serverNic != null) {
            if (serverNicDevice instanceof SimulatedDevice simulated && serverNic.registeredDeviceRegions() == 0) {
                assertEquals(0, simulated.registeredRegions(), "the server deregistered every block it exported");
            }
            // GPU memory stays registered a region (the simulated GPU's arena) at a time while the NIC is open, shared by its blocks.
            assertTrue(serverNic.registeredDeviceRegions() <= 1, "one cached GPU region at most: " + serverNic.registeredDeviceRegions());
            serverNic.close();
            if (serverNicDevice instanceof SimulatedDevice simulated) {
                assertEquals(0, simulated.registeredRegions(), "closing the NIC deregistered every block and every cached GPU region");
            }
        }
        deviceConsumers.forEach(DeviceConsumerSide::close);
        shmWriter.close();
        if (store != null) {
            store.close();
            pool.close();
            landingPool.close();
            // Throws with the device allocator's leak report if any device buffer is still open.
            runtime.close();
        }
    }

    @Override
    public void assertReleased()
            throws IOException
    {
        if (released) {
            return;
        }
        released = true;
        assertEquals(0, serverAllocator.getAllocatedMemory(), "the server released every block it opened");
        serverAllocator.close();
        try (Stream<Path> files = Files.list(directory.resolve("shm"))) {
            assertEquals(List.of(), files.toList(), "every published shared-memory block was released");
        }
    }
}
