package dev.ferry.shuffle.transport.contract;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.IpcHandle;
import dev.ferry.device.pool.DeviceMemoryPool;
import dev.ferry.shuffle.PeerEndpoints;
import dev.ferry.shuffle.placement.ExecutorPlace;
import dev.ferry.shuffle.transport.ChildProcess;
import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.ShuffleTransport;
import dev.ferry.shuffle.transport.auth.TcpAuth;
import dev.ferry.shuffle.transport.client.TcpShuffleTransport;
import dev.ferry.shuffle.transport.ipc.DeviceBlockReader;
import dev.ferry.shuffle.transport.ipc.DeviceLanding;
import dev.ferry.shuffle.transport.metrics.PeerRouteLog;
import dev.ferry.shuffle.transport.metrics.RouteCounters;
import dev.ferry.shuffle.transport.routing.RoutingShuffleTransport;
import dev.ferry.shuffle.transport.shm.ShmBlockReader;
import dev.ferry.topology.file.TopologyFileReader;
import dev.ferry.topology.model.ClusterTopology;
import dev.ferry.topology.route.RoutePolicy;
import dev.ferry.topology.route.RoutePolicyConfig;
import org.apache.spark.storage.BlockManagerId;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Contract endpoints for the same-node device routes (NVLINK, PCIE_P2P) over the simulated
 * backend's cross-process IPC: the serving executor is a child JVM ({@link IpcContractServer}),
 * the reader this JVM's routing transport with its own simulated GPU to copy into.
 */
final class IpcEndpoints
        implements ContractEndpoints
{
    private final ContractSecurity security;
    private final ChildProcess child;
    private final Path directory;
    private final String topology;
    private final ExecutorPlace self;
    private final DeviceRuntime runtime;
    private final DeviceMemoryPool landingPool;
    private final FaultyProxy proxy;
    private final PeerAddress peer;
    private final ShuffleTransport reader;
    private final List<ShuffleTransport> extraReaders = new ArrayList<>();
    private final List<RoutedEndpoints.DeviceConsumerSide> deviceConsumers = new ArrayList<>();
    private String childVerdict;
    private boolean closed;

    IpcEndpoints(String topology, ExecutorPlace self, ExecutorPlace peerPlace, ContractSecurity security, ContractFault fault, Path directory)
            throws Exception
    {
        this.directory = directory;
        this.topology = topology;
        this.self = self;
        Files.createDirectories(directory.resolve("shm"));
        this.security = security;
        child = ChildProcess.start(IpcContractServer.class, directory.resolve("shm").toString(), security.secret().orElse("-"), String.valueOf(security.encrypt()));
        int port = Integer.parseInt(child.expect("LISTEN"));
        runtime = DeviceRuntime.create(new MapConfigSource(RoutedEndpoints.DEVICE_CONFIG));
        landingPool = new DeviceMemoryPool(runtime, 0, 32L << 20, 100);
        // Byte 6 of the answer lies inside the first handle response frame.
        proxy = fault == ContractFault.NONE ? null : new FaultyProxy(port, fault, 6);
        BlockManagerId location = PeerEndpoints.withEndpoints(BlockManagerId.apply("ipc-peer", "localhost", 7000, scala.Option.empty()),
                proxy == null ? port : proxy.port(), Optional.of(peerPlace), true);
        peer = PeerEndpoints.tcpPeer(location).orElseThrow();
        reader = newReader(security);
    }

    private ShuffleTransport newReader(ContractSecurity readerSecurity)
    {
        TcpAuth auth = readerSecurity.tcpAuth();
        ClusterTopology cluster = TopologyFileReader.load(Path.of("..", "examples", "topologies", topology + ".json"));
        Path shm = directory.resolve("shm");
        RouteCounters counters = new RouteCounters();
        return new RoutingShuffleTransport(cluster, self, new RoutePolicy(RoutePolicyConfig.defaults()), new TcpShuffleTransport(20_000, 16 << 20, auth), shm,
                new ShmBlockReader(shm, counters), Optional.empty(), "no verbs layer in this contract family", counters, new PeerRouteLog(), Optional.of(new DeviceLanding(runtime, landingPool)), 64L << 20,
                readerSecurity.crypto());
    }

    /** A device consumer on the reading side: its own stream connections, its landing pool on this JVM's simulated GPU and the IPC reader over it. Closed with these endpoints. */
    RoutedEndpoints.DeviceConsumerSide deviceConsumer()
    {
        RouteCounters counters = new RouteCounters();
        DeviceLanding landing = new DeviceLanding(runtime, landingPool);
        RoutedEndpoints.DeviceConsumerSide side = new RoutedEndpoints.DeviceConsumerSide(new TcpShuffleTransport(20_000, 16 << 20, security.tcpAuth()), landing,
                RoutingShuffleTransport.deviceReader(landing, counters, 0), Optional.empty(), new ShmBlockReader(directory.resolve("shm"), new RouteCounters()), counters,
                new org.apache.arrow.memory.RootAllocator());
        deviceConsumers.add(side);
        return side;
    }

    /** {@code buffer}'s bytes, copied back to host memory (for comparisons). */
    byte[] hostCopy(dev.ferry.device.memory.DeviceBuffer buffer)
    {
        return RoutedEndpoints.hostCopy(runtime, buffer);
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
    public ShuffleTransport reader(Optional<String> secret)
    {
        ShuffleTransport extra = newReader(security.withSecret(secret));
        extraReaders.add(extra);
        return extra;
    }

    @Override
    public int connectionsAccepted()
            throws IOException
    {
        try {
            child.send("STATS");
            return Integer.parseInt(child.expect("ACCEPTED"));
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    @Override
    public byte[] captured()
    {
        return proxy == null ? new byte[0] : proxy.captured();
    }

    @Override
    public long blocksOpened()
            throws IOException
    {
        return counts()[0];
    }

    @Override
    public long failuresLogged()
            throws IOException
    {
        return counts()[1];
    }

    private long[] counts()
            throws IOException
    {
        try {
            child.send("COUNTS");
            String[] parts = child.expect("COUNTS").trim().split(" ");
            return new long[] {Long.parseLong(parts[0]), Long.parseLong(parts[1])};
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    /** An IPC-copied block into a host buffer one byte too small: the device block reader refuses before copying. */
    @Override
    public Exception readOutOfBounds()
            throws Exception
    {
        child.send("HANDLE");
        IpcHandle handle = IpcHandle.fromBase64(child.expect("HANDLE"));
        try {
            new DeviceBlockReader(runtime, 0, new RouteCounters(), 4096, 0).readToHost(handle, ByteBuffer.allocateDirect(Math.toIntExact(handle.length()) - 1));
            return null;
        }
        catch (RuntimeException e) {
            return e;
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
        try {
            child.send("EXIT");
            childVerdict = child.nextLine();
            child.expect("BYE");
        }
        catch (IOException | InterruptedException e) {
            childVerdict = "no answer: " + e;
        }
        finally {
            try {
                child.close();
            }
            catch (IOException e) {
                childVerdict = childVerdict + "; closing the child failed: " + e;
            }
        }
        deviceConsumers.forEach(RoutedEndpoints.DeviceConsumerSide::close);
        // Both throw with the device allocator's leak report if a landing buffer was not released.
        landingPool.close();
        runtime.close();
    }

    @Override
    public void assertReleased()
            throws IOException
    {
        assertEquals("RELEASED", childVerdict, "the serving executor released every lease, device buffer and host buffer");
        try (Stream<Path> files = Files.list(directory.resolve("shm"))) {
            assertEquals(List.of(), files.toList(), "every published shared-memory block was released");
        }
    }
}
