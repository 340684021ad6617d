package dev.ferry.shuffle.placement;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

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
