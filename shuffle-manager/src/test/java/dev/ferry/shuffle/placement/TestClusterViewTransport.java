package dev.ferry.shuffle.placement;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.pool.DeviceMemoryPool;
import dev.ferry.shuffle.transport.client.TcpShuffleTransport;
import dev.ferry.shuffle.transport.crypto.SparkCryptoSettings;
import dev.ferry.shuffle.transport.ipc.DeviceBlockReader;
import dev.ferry.shuffle.transport.ipc.DeviceLanding;
import dev.ferry.shuffle.transport.metrics.PeerRouteFallbacks;
import dev.ferry.shuffle.transport.metrics.PeerRouteLog;
import dev.ferry.shuffle.transport.metrics.RouteCounters;
import dev.ferry.shuffle.transport.routing.RoutingShuffleTransport;
import dev.ferry.shuffle.transport.shm.ShmBlockReader;
import dev.ferry.topology.route.RoutePolicy;
import dev.ferry.topology.route.RoutePolicyConfig;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.io.TempDir;

import dev.ferry.shuffle.transport.FetchedBlocks;
import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.ShuffleTransport;
import dev.ferry.topology.file.TopologyFileReader;
import dev.ferry.topology.model.ClusterTopology;
import org.apache.arrow.memory.BufferAllocator;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/** A probed map grows when a peer's node appears: the routing transport is rebuilt over it, once, and only when the re-ask knows the node. */
class TestClusterViewTransport
{
    private static final ClusterTopology HGX = TopologyFileReader.load(Path.of("src", "test", "resources", "topologies", "hgx-8gpu-pci.json"));
    private static final ClusterTopology ONLY_A = ClusterTopology.single(HGX.node("hgx-a").orElseThrow());

    @Test
    void aPeerOnANewNodeRebuildsTheRoutesOverTheLargerMap()
    {
        TestingClusterView view = new TestingClusterView(ONLY_A);
        List<ClusterTopology> built = new ArrayList<>();
        ClusterViewTransport transport = new ClusterViewTransport(view, cluster -> {
            built.add(cluster);
            return new TestingTransport();
        });
        PeerAddress sameNode = peer("2", "ferry.tcp=1;ferry.node=hgx-a;ferry.gpu=GPU1;ferry.store=device");
        PeerAddress otherNode = peer("3", "ferry.tcp=1;ferry.node=hgx-b;ferry.gpu=GPU0;ferry.store=device");
        ShuffleTransport first = transport.transportFor(sameNode);
        assertEquals(0, view.refreshes, "a known node needs no re-ask");

        // hgx-b has not reported yet: re-asked, not known, nothing rebuilt.
        assertSame(first, transport.transportFor(otherNode));
        assertEquals(1, view.refreshes);
        assertEquals(1, built.size());

        view.next = HGX;
        ShuffleTransport rebuilt = transport.transportFor(otherNode);
        assertEquals(2, built.size());
        assertEquals(2, built.get(1).nodes().size());
        assertEquals(1, transport.rebuilds());
        assertSame(rebuilt, transport.transportFor(otherNode), "known now: no further re-ask or rebuild");
        assertEquals(2, view.refreshes);
        assertSame(rebuilt, transport.transportFor(peer("4", "ferry.tcp=1")), "a peer without a place is routed TCP by the routing transport");
    }

    /**
     * Rebuilt routing transports share one device block reader, so the pinned host landing pool is
     * one pool however often the map grows: after rebuilds the pinned allocator holds exactly that
     * pool's idle buffers, and after close nothing (the books are exact, nothing waits for the JVM's exit).
     */
    @Test
    void rebuildsShareOnePinnedLandingPoolWhichCloseReleases(@TempDir Path shm)
    {
        try (DeviceRuntime runtime = DeviceRuntime.create(new MapConfigSource(Map.of("spark.ferry.device", "simulated", "spark.ferry.device.simulated.capacity", "16m")));
                DeviceMemoryPool landingPool = new DeviceMemoryPool(runtime, 0, 1 << 20, 100);
                RootAllocator arrow = new RootAllocator()) {
            long pinnedBefore = runtime.pinnedAllocator().allocatedBytes();
            RouteCounters counters = new RouteCounters();
            DeviceLanding landing = new DeviceLanding(runtime, landingPool);
            DeviceBlockReader reader = RoutingShuffleTransport.deviceReader(landing, counters, 4L << 20);
            TcpShuffleTransport stream = new TcpShuffleTransport(10_000, 16 << 20);
            TestingClusterView view = new TestingClusterView(ONLY_A);
            List<RoutingShuffleTransport> built = new ArrayList<>();
            ClusterViewTransport transport = new ClusterViewTransport(view, cluster -> {
                RoutingShuffleTransport routing = new RoutingShuffleTransport(cluster, new ExecutorPlace("hgx-a", Optional.of("GPU0")),
                        new RoutePolicy(RoutePolicyConfig.defaults()), stream, shm, new ShmBlockReader(shm, counters), Optional.empty(), "", counters,
                        new PeerRouteLog(), Optional.of(landing), Optional.of(reader), new PeerRouteFallbacks(), SparkCryptoSettings.none());
                built.add(routing);
                return routing;
            });
            // A block landed and released: its pinned buffer stays idle in the pool for the next one.
            reader.hostLanding().take(arrow, 100_000).close();
            long idle = reader.hostLanding().idleBytes();
            assertEquals(pinnedBefore + idle, runtime.pinnedAllocator().allocatedBytes());

            view.next = HGX;
            transport.transportFor(peer("3", "ferry.tcp=1;ferry.node=hgx-b;ferry.gpu=GPU0;ferry.store=device"));
            assertEquals(1, transport.rebuilds());
            assertEquals(2, built.size());
            reader.hostLanding().take(arrow, 100_000).close();
            assertEquals(1, reader.hostLanding().reused(), "the rebuilt transport lands in the same pool");
            assertEquals(1, reader.hostLanding().allocated());
            assertEquals(pinnedBefore + idle, runtime.pinnedAllocator().allocatedBytes(), "the rebuild allocated no pinned memory");

            transport.close();
            assertEquals(pinnedBefore, runtime.pinnedAllocator().allocatedBytes(), "closing released the one landing pool");
        }
    }

    private static PeerAddress peer(String executorId, String topologyInfo)
    {
        return new PeerAddress(executorId, "localhost", 1, topologyInfo);
    }

    private static final class TestingClusterView
            implements ClusterView
    {
        private ClusterTopology cluster;
        private ClusterTopology next;
        private int refreshes;

        TestingClusterView(ClusterTopology cluster)
        {
            this.cluster = cluster;
            this.next = cluster;
        }

        @Override
        public ClusterTopology cluster()
        {
            return cluster;
        }

        @Override
        public ClusterTopology refresh(String missingNode)
        {
            refreshes++;
            cluster = next;
            return cluster;
        }

        @Override
        public boolean refreshable()
        {
            return true;
        }
    }

    private static final class TestingTransport
            implements ShuffleTransport
    {
        @Override
        public String routeName()
        {
            return "TESTING";
        }

        @Override
        public FetchedBlocks fetch(PeerAddress peer, List<ShuffleBlockRef> blocks, BufferAllocator allocator)
        {
            throw new UnsupportedOperationException("not fetched in this test");
        }

        @Override
        public void close()
        {
        }
    }
}
