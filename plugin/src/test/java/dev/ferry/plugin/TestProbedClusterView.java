package dev.ferry.plugin;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import dev.ferry.topology.file.TopologyFileReader;
import dev.ferry.topology.file.TopologyFileWriter;
import dev.ferry.topology.model.ClusterTopology;
import dev.ferry.topology.model.NodeTopology;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An executor asks the driver for the probed view once, and again for an unknown peer at most once per interval. */
class TestProbedClusterView
{
    private static final ClusterTopology HGX = TopologyFileReader.load(Path.of("src", "test", "resources", "topologies", "hgx-8gpu-pci.json"));
    private static final NodeTopology A = HGX.node("hgx-a").orElseThrow();
    private static final NodeTopology B = HGX.node("hgx-b").orElseThrow();

    @Test
    void anUnknownPeerTriggersOneRateLimitedReask()
    {
        FerryDriverPlugin driver = new FerryDriverPlugin();
        driver.receive(new ExecutorPlacement("1", "hgx-a", List.of(), TopologyFileWriter.node(A).toString(), "a"));
        List<Object> asked = new ArrayList<>();
        AtomicLong now = new AtomicLong();
        ProbedClusterView view = new ProbedClusterView("1", A, message -> {
            asked.add(message);
            return driver.receive(message);
        }, now::get);

        assertEquals(List.of("hgx-a"), hosts(view.cluster()));
        assertEquals(1, view.asks());
        // Within the interval of that first ask nothing is asked again.
        view.refresh("hgx-b");
        assertEquals(1, view.asks());
        // hgx-b has not reported: one re-ask, then none within the interval however many fetches come.
        now.addAndGet(ProbedClusterView.REASK_NANOS);
        view.refresh("hgx-b");
        view.refresh("hgx-b");
        view.refresh("hgx-b");
        assertEquals(2, view.asks());
        driver.receive(new ExecutorPlacement("2", "hgx-b", List.of(), TopologyFileWriter.node(B).toString(), "b"));
        assertEquals(List.of("hgx-a"), hosts(view.refresh("hgx-b")), "still within the interval");
        now.addAndGet(ProbedClusterView.REASK_NANOS);
        assertEquals(List.of("hgx-a", "hgx-b"), hosts(view.refresh("hgx-b")));
        assertEquals(3, view.asks());
        assertTrue(asked.stream().allMatch(ClusterViewRequest.class::isInstance));
    }

    @Test
    void anUnreachableDriverKeepsTheOwnNode()
    {
        ProbedClusterView view = new ProbedClusterView("1", A, message -> {
            throw new java.io.IOException("driver gone");
        });
        assertEquals(List.of("hgx-a"), hosts(view.cluster()));
        assertEquals(List.of("hgx-a"), hosts(view.refresh("hgx-b")));
    }

    @Test
    void theOwnNodeWinsOverTheDriversCopyOfIt()
    {
        FerryDriverPlugin driver = new FerryDriverPlugin();
        // The driver kept another executor's (differing) first report of this host.
        driver.receive(new ExecutorPlacement("2", "hgx-a", List.of(), "{\"hostname\": \"hgx-a\", \"gpus\": []}", "a"));
        ProbedClusterView view = new ProbedClusterView("1", A, driver::receive);
        assertEquals(8, view.cluster().node("hgx-a").orElseThrow().gpus().size());
    }

    private static List<String> hosts(ClusterTopology cluster)
    {
        return cluster.nodes().stream().map(NodeTopology::hostname).toList();
    }
}
