package dev.ferry.shuffle;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.Stream;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.conf.ConfigSource;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.pool.BlockLease;
import dev.ferry.shuffle.format.CompressionKind;
import dev.ferry.shuffle.format.EncodingSettings;
import dev.ferry.shuffle.placement.ClusterView;
import dev.ferry.shuffle.placement.ClusterViewTransport;
import dev.ferry.shuffle.placement.ExecutorPlace;
import dev.ferry.shuffle.placement.ExecutorTopology;
import dev.ferry.shuffle.store.DeviceTieredMapOutputStore;
import dev.ferry.shuffle.store.MapOutputStore;
import dev.ferry.shuffle.store.MapOutputStores;
import dev.ferry.shuffle.transport.BlockServer;
import dev.ferry.shuffle.transport.DeviceBlockSource;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.ShuffleTransport;
import dev.ferry.shuffle.transport.routing.BlockServers;
import dev.ferry.shuffle.transport.server.TcpBlockServer;
import dev.ferry.shuffle.transport.routing.RoutingShuffleTransport;
import dev.ferry.shuffle.transport.client.TcpShuffleTransport;
import dev.ferry.shuffle.transport.auth.TcpAuth;
import dev.ferry.shuffle.transport.client.FetchLimits;
import dev.ferry.shuffle.transport.rdma.VerbsBlocks;
import dev.ferry.shuffle.transport.auth.AuthBootstrap;
import dev.ferry.shuffle.transport.auth.SparkAuthSettings;
import dev.ferry.shuffle.transport.crypto.SparkCryptoSettings;
import dev.ferry.topology.model.ClusterTopology;
import dev.ferry.topology.model.Nic;
import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.model.Presence;
import dev.ferry.topology.route.RoutePolicy;
import dev.ferry.topology.route.RoutePolicyConfig;
import dev.ferry.shuffle.transport.TransportConfigKeys;
import dev.ferry.shuffle.transport.ipc.DeviceBlockReader;
import dev.ferry.shuffle.transport.ipc.DeviceLanding;
import dev.ferry.shuffle.transport.shm.ShmBlockReader;
import dev.ferry.shuffle.transport.shm.ShmBlockWriter;
import dev.ferry.shuffle.transport.shm.ShmNames;
import dev.ferry.shuffle.transport.metrics.PeerRouteFallbacks;
import dev.ferry.shuffle.transport.metrics.PeerRouteLog;
import dev.ferry.shuffle.transport.metrics.RouteCounters;
import dev.ferry.shuffle.transport.rdma.verbs.NicAddresses;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsDevice;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsException;
import dev.ferry.shuffle.transport.rdma.VerbsProviders;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsSelection;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsSettings;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.SimulatedNicOptions;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.SimulatedVerbsProvider;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.spark.SecurityManager;
import org.apache.spark.SparkEnv;
import org.apache.spark.sql.util.ArrowUtils;
import org.apache.spark.storage.BlockManager;
import org.apache.spark.storage.BlockManagerId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.util.Objects.requireNonNull;

/**
 * What one executor needs for Ferry shuffles: its map output store, the block server other
 * executors fetch from, and the client transport. Built on first use (SparkEnv is not ready when
 * the shuffle manager is constructed) and closed when the manager stops.
 */
public final class FerryShuffleRuntime
        implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(FerryShuffleRuntime.class);
    /** Bytes and blocks this executor JVM read per route (all shuffles; LOCAL reads are counted in the exchange metrics only). */
    private static final RouteCounters ROUTE_COUNTERS = new RouteCounters();

    private final String executorId;
    private final BlockManagerId location;
    private final BufferAllocator allocator;
    private final MapOutputStore store;
    private final ShuffleTransport transport;
    private final BlockServer server;
    private final Path localDirectory;
    private final long maxBytesInFlight;
    private final long taskArrowLimit;
    private final Optional<DeviceReads> deviceReads;
    // The reduce tasks' remote fetches run here, overlapped with their decoding. Cached, not fixed: each
    // task has at most about five requests out (maxBytesInFlight), so the threads in use are bounded by
    // the running tasks, and idle ones end after a minute.
    private final ExecutorService fetchThreads = Executors.newCachedThreadPool(new FetchThreadFactory());
    private final int executorCores;
    // The last codec 'auto' became here, so a change (the probed map grew) is logged once.
    private final AtomicReference<CodecForLink.Decision> lastAutoCodec = new AtomicReference<>();

    private FerryShuffleRuntime(String executorId, BlockManagerId location, BufferAllocator allocator, MapOutputStore store, ShuffleTransport transport, BlockServer server,
            Path localDirectory, long maxBytesInFlight, long taskArrowLimit, int executorCores, Optional<DeviceReads> deviceReads)
    {
        this.deviceReads = requireNonNull(deviceReads, "deviceReads is null");
        this.executorCores = executorCores;
        this.executorId = requireNonNull(executorId, "executorId is null");
        this.location = requireNonNull(location, "location is null");
        this.allocator = requireNonNull(allocator, "allocator is null");
        this.store = requireNonNull(store, "store is null");
        this.transport = requireNonNull(transport, "transport is null");
        this.server = requireNonNull(server, "server is null");
        this.localDirectory = requireNonNull(localDirectory, "localDirectory is null");
        this.maxBytesInFlight = maxBytesInFlight;
        this.taskArrowLimit = taskArrowLimit;
    }

    /** Builds the runtime of the executor this JVM runs, from SparkEnv. */
    public static FerryShuffleRuntime start(ConfigSource config)
    {
        SparkEnv env = SparkEnv.get();
        long taskArrowLimit = taskArrowLimit(config);
        BlockManager blockManager = env.blockManager();
        Path localDirectory = localDirectory(blockManager, env.executorId());
        BufferAllocator allocator = ArrowUtils.rootAllocator().newChildAllocator("ferry-shuffle-" + env.executorId(), 0, Long.MAX_VALUE);
        MapOutputStore store = null;
        ShuffleTransport transport = null;
        try {
            Optional<ExecutorTopology.Known> topology = ExecutorTopology.current();
            // With a topology, same-node peers read over HOST_SHM: keep host map outputs in shared memory from the start.
            // With spark.io.encryption.enabled nothing is left in shared memory (same-node peers fetch over TCP).
            store = MapOutputStores.create(config, allocator, localDirectory,
                    topology.filter(known -> !SparkCryptoSettings.from(config).ioEncryption()).map(known -> ShmNames.directory(config)));
            SparkCryptoSettings crypto = SparkCryptoSettings.from(config);
            TcpAuth auth = auth(env, config, crypto);
            TcpShuffleTransport stream = new TcpShuffleTransport(ShuffleConfigKeys.TCP_TIMEOUT_MILLIS.get(config), ShuffleConfigKeys.TCP_MAX_FRAME_BYTES.get(config), auth,
                    FetchLimits.from(config));
            transport = stream;
            ShmBlockWriter shmWriter = null;
            VerbsBlocks verbs = null;
            DeviceBlockSource deviceBlocks = null;
            Optional<DeviceReads> deviceReads = Optional.empty();
            if (topology.isPresent()) {
                Path shmDirectory = ShmNames.directory(config);
                // A replacement executor cleans up after the one it replaces (killed with its blocks published), whatever its store.
                ShmNames.sweepOrphans(shmDirectory);
                // With spark.io.encryption.enabled this executor publishes nothing in shared memory (peers fetch over TCP).
                shmWriter = crypto.ioEncryption() ? null : new ShmBlockWriter(shmDirectory, TransportConfigKeys.SHM_STAGING_BYTES.get(config));
                RoutePolicy policy = new RoutePolicy(RoutePolicyConfig.from(config));
                String[] noVerbsReason = new String[1];
                if (crypto.networkCrypto()) {
                    // One-sided READs would carry blocks outside the encrypted stream: no NIC is opened, peers fetch over TCP.
                    noVerbsReason[0] = SparkCryptoSettings.NETWORK_CRYPTO + " is on and RDMA READs are not encrypted";
                    LOG.info("Ferry shuffle RDMA routes are off: {}", noVerbsReason[0]);
                }
                else {
                    verbs = openVerbs(config, topology.get(), policy, store, noVerbsReason);
                }
                Optional<DeviceLanding> device = Optional.empty();
                if (store instanceof DeviceTieredMapOutputStore deviceStore) {
                    deviceBlocks = deviceBlocks(deviceStore);
                    // Blocks fetched over device routes land in the store's own pool, so they count
                    // against spark.ferry.device.memoryLimit with the map outputs (and may spill them).
                    device = Optional.of(new DeviceLanding(deviceStore.runtime(), deviceStore.pool()));
                }
                ExecutorPlace self = topology.get().place();
                ShmBlockReader shmReader = new ShmBlockReader(shmDirectory, ROUTE_COUNTERS);
                Optional<VerbsBlocks> nic = Optional.ofNullable(verbs);
                String noVerbs = noVerbsReason[0] == null ? "" : noVerbsReason[0];
                PeerRouteLog routeLog = new PeerRouteLog();
                Optional<DeviceLanding> landing = device;
                long landingRetain = TransportConfigKeys.HOST_LANDING_POOL_BYTES.get(config);
                // One device block reader, with its pinned landing pool, for every routing transport a probed view rebuilds.
                Optional<DeviceBlockReader> deviceReader = landing.map(into -> RoutingShuffleTransport.deviceReader(into, ROUTE_COUNTERS, landingRetain));
                // Routes that did not work with a peer stay refused for it in a rebuilt transport too.
                PeerRouteFallbacks fallbacks = new PeerRouteFallbacks();
                if (store instanceof DeviceTieredMapOutputStore deviceStore) {
                    // Device consumers route by the topology this executor started with: under probed routes a peer that reported later is not in it, and its blocks go staged (counted).
                    deviceReads = Optional.of(new DeviceReads(deviceStore, landing.orElseThrow(), deviceReader.orElseThrow(), stream,
                            new ShmBlockReader(shmDirectory, new RouteCounters()), nic, self, topology.get().cluster(), policy, ROUTE_COUNTERS, crypto));
                }
                Function<ClusterTopology, ShuffleTransport> routing = cluster -> new RoutingShuffleTransport(cluster, self, policy, stream, shmDirectory,
                        shmReader, nic, noVerbs, ROUTE_COUNTERS, routeLog, landing, deviceReader, fallbacks, crypto);
                ClusterView view = ExecutorTopology.view().orElseThrow();
                // Probed: peers that report after this executor asked the driver join the map on their first fetch.
                transport = view.refreshable() ? new ClusterViewTransport(view, routing) : routing.apply(topology.get().cluster());
            }
            MapOutputStore served = store;
            // As Spark's block transfer service: bound to the executor's own address, not every interface.
            InetAddress bindAddress = InetAddress.getByName(blockManager.shuffleServerId().host());
            BlockServer server = BlockServers.builder(block -> served.open(block.shuffleId(), block.mapId(), block.reduceId()))
                    .bind(bindAddress, ShuffleConfigKeys.TCP_PORT.get(config))
                    .maxFrameBytes(ShuffleConfigKeys.TCP_MAX_FRAME_BYTES.get(config))
                    .sharedMemory(shmWriter)
                    .verbs(verbs)
                    .auth(auth)
                    .deviceBlocks(deviceBlocks)
                    .maxConnections(TransportConfigKeys.SERVER_MAX_CONNECTIONS.get(config))
                    .start();
            BlockManagerId location = topology.isPresent()
                    ? PeerEndpoints.withEndpoints(blockManager.shuffleServerId(), server.port(), topology.map(ExecutorTopology.Known::place),
                            store instanceof DeviceTieredMapOutputStore)
                    : PeerEndpoints.withTcpPort(blockManager.shuffleServerId(), server.port());
            LOG.info("Ferry shuffle on executor {}: {} store, TCP block server on {}:{}{}{}", env.executorId(), store.name(), bindAddress.getHostAddress(), server.port(),
                    auth.enabled() ? (auth.encrypt() ? ", authenticated and encrypted" : ", authenticated") : "",
                    topology.map(known -> ", routes by " + (ExecutorTopology.view().map(ClusterView::refreshable).orElse(false) ? "the probed cluster map" : "topology "
                            + known.cluster().name()) + " from " + known.place()).orElse(""));
            return new FerryShuffleRuntime(env.executorId(), location, allocator, store, transport, server, localDirectory,
                    ShuffleConfigKeys.MAX_BYTES_IN_FLIGHT.get(config), taskArrowLimit, env.conf().getInt("spark.executor.cores", 1), deviceReads);
        }
        catch (IOException e) {
            closeAll(store, transport, allocator);
            throw new UncheckedIOException("Cannot start Ferry's TCP block server: " + e.getMessage(), e);
        }
        catch (RuntimeException e) {
            closeAll(store, transport, allocator);
            throw e;
        }
    }

    private static long taskArrowLimit(ConfigSource config)
    {
        long limit = ShuffleConfigKeys.TASK_ARROW_LIMIT_BYTES.get(config);
        long buffered = ShuffleConfigKeys.MAP_BUFFER_BYTES.get(config);
        if (limit <= buffered) {
            throw new IllegalArgumentException(ShuffleConfigKeys.TASK_ARROW_LIMIT_BYTES.name() + " (" + limit + ") must exceed "
                    + ShuffleConfigKeys.MAP_BUFFER_BYTES.name() + " (" + buffered + "): a map task's open batches alone may take that much");
        }
        return limit;
    }

    /** Spark's own authentication: on with {@code spark.authenticate}, with the secret Spark's SecurityManager holds (set in conf or handed to executors). */
    private static TcpAuth auth(SparkEnv env, ConfigSource config, SparkCryptoSettings crypto)
    {
        SecurityManager security = env.securityManager();
        if (!security.isAuthenticationEnabled()) {
            if (crypto.networkCrypto()) {
                throw new FerryException(ErrorCategory.USER_ERROR, SparkCryptoSettings.NETWORK_CRYPTO + " is on but spark.authenticate is off: Ferry's block streams "
                        + "are encrypted with keys their authentication derives, as Spark's are");
            }
            return TcpAuth.none();
        }
        SparkAuthSettings settings = new SparkAuthSettings(true, env.conf().getAppId(), Optional.ofNullable(security.getSecretKey()));
        return new TcpAuth(settings, AuthBootstrap.timeout(config), crypto.networkCrypto());
    }

    /** The device store's blocks, lent for the NVLINK, PCIE_P2P and GPUDIRECT_RDMA routes. */
    private static DeviceBlockSource deviceBlocks(DeviceTieredMapOutputStore store)
    {
        return new DeviceBlockSource()
        {
            @Override
            public DeviceRuntime runtime()
            {
                return store.runtime();
            }

            @Override
            public Optional<BlockLease> borrow(ShuffleBlockRef block)
            {
                return store.borrow(block.shuffleId(), block.mapId(), block.reduceId());
            }
        };
    }

    /** This executor's NIC for the RDMA routes, or null with the reason in {@code reason[0]}. */
    private static VerbsBlocks openVerbs(ConfigSource config, ExecutorTopology.Known topology, RoutePolicy policy, MapOutputStore store,
            String[] reason)
            throws IOException
    {
        NodeTopology node = topology.cluster().node(topology.place().node()).orElseThrow();
        Optional<Nic> nic = topology.place().gpu().isPresent() ? policy.bestNic(node, topology.place().gpu().get())
                : node.nics().stream().filter(Nic::isActive).findFirst().or(() -> node.nics().stream().findFirst());
        if (nic.isEmpty()) {
            reason[0] = "node " + node.hostname() + " has no RDMA NIC";
            return null;
        }
        String backend = store.name().startsWith("device(") ? store.name().substring("device(".length(), store.name().length() - 1) : "none";
        VerbsSelection selection = VerbsProviders.select(config, backend);
        if (selection.provider().isEmpty()) {
            reason[0] = selection.reason();
            return null;
        }
        VerbsSettings settings = VerbsSettings.from(config);
        long chunk = TransportConfigKeys.RDMA_READ_CHUNK_BYTES.get(config);
        Duration timeout = Duration.ofMillis(ShuffleConfigKeys.TCP_TIMEOUT_MILLIS.get(config));
        if (!(selection.provider().get() instanceof SimulatedVerbsProvider)) {
            // A real NIC is opened by one of its own addresses (RDMA CM), found from its interfaces in the topology.
            NicAddresses.Resolved address = NicAddresses.resolve(nic.get(), TransportConfigKeys.RDMA_ADDRESS.get(config), NicAddresses::systemInterfaceAddresses);
            if (address.address().isEmpty()) {
                reason[0] = selection.reason() + ", but " + address.reason();
                return null;
            }
            VerbsDevice device;
            try {
                device = selection.provider().get().openDevice(nic.get().name(), new InetSocketAddress(address.address().get(), 0), settings);
            }
            catch (VerbsException | RuntimeException | LinkageError e) {
                // Never fail the executor over the NIC: a native or driver error here means the RDMA routes go TCP, with the reason.
                reason[0] = selection.reason() + ", but " + nic.get().name() + " (" + address.reason() + ") did not open: " + e;
                LOG.warn("Ferry shuffle RDMA routes fall back to TCP: {}", reason[0]);
                return null;
            }
            LOG.info("Ferry shuffle RDMA routes over {} at {} ({}; {})", device.name(), device.listenAddress(), selection.reason(), address.reason());
            return new VerbsBlocks(device, settings, (int) Math.min(chunk, Integer.MAX_VALUE), timeout);
        }
        // A simulated NIC registers GPU memory (GPUDirect RDMA) only where the topology says the node has peer memory
        // (nvidia_peermem) and spark.ferry.transport.simulated.peermem does not turn it off.
        boolean peermem = node.kernelFacts().peerMemory().presence() == Presence.PRESENT && TransportConfigKeys.SIMULATED_PEERMEM.get(config);
        SimulatedVerbsProvider provider = new SimulatedVerbsProvider(SimulatedNicOptions.from(config).withPeermem(peermem));
        VerbsDevice device = provider.openLoopbackDevice("sim_" + nic.get().name(), settings);
        LOG.info("Ferry shuffle RDMA routes over {} ({})", device.name(), selection.reason());
        return new VerbsBlocks(device, settings, (int) Math.min(chunk, Integer.MAX_VALUE), timeout);
    }

    private static void closeAll(MapOutputStore store, ShuffleTransport transport, BufferAllocator allocator)
    {
        if (store != null) {
            store.close();
        }
        if (transport != null) {
            transport.close();
        }
        allocator.close();
    }

    private static Path localDirectory(BlockManager blockManager, String executorId)
    {
        try {
            File[] dirs = blockManager.diskBlockManager().localDirs();
            Path base = dirs.length > 0 ? dirs[0].toPath() : Files.createTempDirectory("ferry-shuffle");
            return base.resolve("ferry-" + executorId);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** This executor JVM's per-route counters of remote reads. */
    public static RouteCounters routeCounters()
    {
        return ROUTE_COUNTERS;
    }

    public String executorId()
    {
        return executorId;
    }

    /** The MapStatus location of this executor's Ferry map outputs. */
    public BlockManagerId location()
    {
        return location;
    }

    public BufferAllocator allocator()
    {
        return allocator;
    }

    public MapOutputStore store()
    {
        return store;
    }

    /** The device store and device routes for consumers that keep blocks on the GPU; empty without a device store or a topology. */
    public Optional<DeviceReads> deviceReads()
    {
        return deviceReads;
    }

    public ShuffleTransport transport()
    {
        return transport;
    }

    public long maxBytesInFlight()
    {
        return maxBytesInFlight;
    }

    /**
     * The exchange's encoding for a map task starting now: {@code auto} resolved from this executor's link
     * in the cluster map as it is now (a probed map grows as peers report), each new decision logged once.
     */
    public EncodingSettings encodingFor(EncodingSettings exchange)
    {
        if (exchange.compression() != CompressionKind.AUTO) {
            return exchange;
        }
        CodecForLink.Decision decision = CodecForLink.choose(ExecutorTopology.current(), executorCores);
        if (!decision.equals(lastAutoCodec.getAndSet(decision))) {
            LOG.info("Ferry shuffle codec auto on executor {}: {} ({})", executorId, decision.codec().name().toLowerCase(Locale.ROOT), decision.reason());
        }
        return exchange.withCompression(decision.codec());
    }

    /** Where reduce tasks' remote fetches run. */
    public Executor fetchThreads()
    {
        return fetchThreads;
    }

    private static final class FetchThreadFactory
            implements ThreadFactory
    {
        private final AtomicInteger count = new AtomicInteger();

        @Override
        public Thread newThread(Runnable task)
        {
            Thread thread = new Thread(task, "ferry-fetch-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        }
    }

    /** The Arrow memory one task's shuffle writer or reader may hold ({@code spark.ferry.shuffle.task.arrowLimitBytes}). */
    public long taskArrowLimit()
    {
        return taskArrowLimit;
    }

    public Optional<Path> localDirectory()
    {
        return Optional.of(localDirectory);
    }

    @Override
    public void close()
    {
        fetchThreads.shutdown();
        try {
            server.close();
        }
        finally {
            try {
                transport.close();
            }
            finally {
                try {
                    store.close();
                }
                finally {
                    try {
                        allocator.close();
                    }
                    catch (IllegalStateException e) {
                        LOG.warn("Ferry shuffle memory still referenced at executor stop: {}", e.getMessage());
                    }
                    deleteQuietly(localDirectory);
                }
            }
        }
    }

    private static void deleteQuietly(Path directory)
    {
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
        catch (IOException e) {
            LOG.debug("Cannot delete {}: {}", directory, e.getMessage());
        }
    }
}
