package dev.ferry.plugin;

import java.nio.file.Path;
import java.util.Collections;
import java.util.List;

import dev.ferry.topology.file.TopologyFileReader;
import dev.ferry.topology.file.TopologyFileWriter;
import dev.ferry.topology.model.NodeTopology;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The driver checks an executor's node report before it merges it: bounded, well-formed, a real host name, sane device counts. */
class TestNodeReports
{
    private static final NodeTopology HGX = TopologyFileReader.load(Path.of("src", "test", "resources", "topologies", "hgx-8gpu-pci.json")).node("hgx-a").orElseThrow();

    @Test
    void aProbedNodeIsMergedOncePerHost()
    {
        FerryDriverPlugin driver = new FerryDriverPlugin();
        driver.receive(report("1", "hgx-a", TopologyFileWriter.node(HGX).toString()));
        driver.receive(report("2", "hgx-a", TopologyFileWriter.node(HGX).toString()));
        ClusterViewAnswer answer = ClusterViewAnswer.fromWire(driver.receive(new ClusterViewRequest("3")));
        assertEquals(1, answer.cluster().orElseThrow().nodes().size(), "one node per host");
        assertEquals(8, answer.cluster().orElseThrow().node("hgx-a").orElseThrow().gpus().size());
        assertEquals(1, answer.version());
    }

    @Test
    void malformedAndOversizedReportsAreRefusedWithTheReasonAndCounted()
    {
        FerryDriverPlugin driver = new FerryDriverPlugin();
        long before = FerryDriverPlugin.rejectedReports();
        driver.receive(report("1", "hgx-a", "{\"hostname\": \"hgx-a\", \"gpus\": ["));
        driver.receive(report("2", "hgx-a", " ".repeat(NodeReports.MAX_REPORT_CHARS + 1)));
        assertEquals(before + 2, FerryDriverPlugin.rejectedReports());
        assertEquals(0, ClusterViewAnswer.fromWire(driver.receive(new ClusterViewRequest("3"))).version(), "nothing merged");
        assertTrue(ClusterViewAnswer.fromWire(driver.receive(new ClusterViewRequest("3"))).cluster().isEmpty());

        assertRefused(report("1", "hgx-a", "{\"hostname\": \"hgx-a\", \"gpus\": ["), "Executor 1's node report", "not JSON");
        assertRefused(report("2", "hgx-a", " ".repeat(NodeReports.MAX_REPORT_CHARS + 1)), "Executor 2", "at most " + NodeReports.MAX_REPORT_CHARS);
        assertRefused(report("3", "hgx-a; rm", TopologyFileWriter.node(HGX).toString()), "Executor 3", "not a host name");
        assertRefused(report("4", "hgx-a", "[1, 2]"), "Executor 4", "not a JSON object");
        assertRefused(report("5", "hgx-a", "{\"hostname\": \"hgx-a\", \"nvidiaSmi\": \"/etc/shadow\"}"), "Executor 5", "nvidiaSmi");
        assertRefused(report("6", "hgx-a", "{\"hostname\": \"hgx-a\", \"gpus\": [{\"index\": \"x\"}]}"), "Executor 6", "");
        assertRefused(new ExecutorPlacement("7", "hgx-a", Collections.nCopies(NodeReports.MAX_GPU_ADDRESSES + 1, "0"), TopologyFileWriter.node(HGX).toString(), "s"),
                "Executor 7", "gpu addresses");
    }

    @Test
    void tooManyGpusForAMachineAreRefused()
    {
        StringBuilder gpus = new StringBuilder();
        for (int i = 0; i <= NodeReports.MAX_GPUS; i++) {
            gpus.append(i == 0 ? "" : ",").append("{\"index\": ").append(i).append(", \"name\": \"GPU").append(i).append("\", \"model\": \"m\"}");
        }
        assertRefused(report("1", "big", "{\"hostname\": \"big\", \"gpus\": [" + gpus + "]}"), "Executor 1", (NodeReports.MAX_GPUS + 1) + " GPUs, at most " + NodeReports.MAX_GPUS);
    }

    private static void assertRefused(ExecutorPlacement report, String who, String why)
    {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> NodeReports.validate(report));
        assertTrue(refused.getMessage().startsWith(who) && refused.getMessage().contains(why), refused.getMessage());
    }

    private static ExecutorPlacement report(String executorId, String hostname, String json)
    {
        return new ExecutorPlacement(executorId, hostname, List.of(), json, "8 GPU(s)");
    }
}
