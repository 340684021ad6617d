package dev.ferry.plugin;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.shuffle.placement.ExecutorPlace;
import dev.ferry.topology.file.TopologyFileReader;
import dev.ferry.topology.file.TopologyFileWriter;
import dev.ferry.topology.model.ClusterTopology;
import dev.ferry.topology.model.NodeTopology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Without a topology file, an executor's place is its probed node (named like its host) and the GPU Spark assigned. */
class TestProbedPlacement
{
    private static final Path HGX = Path.of("src", "test", "resources", "topologies", "hgx-8gpu-pci.json");

    @TempDir
    Path temp;

    @Test
    void twoExecutorsOnGpu3AndGpu5OfAnEightGpuNodeArePlacedThere()
    {
        NodeTopology node = NodeLocator.probe(new MapConfigSource(Map.of(PluginConfigKeys.PROBE_OVERRIDE.name(), HGX.toString())), "hgx-a");
        assertEquals(8, node.gpus().size());
        assertEquals(new ExecutorPlace("hgx-a", Optional.of("GPU3")), NodeLocator.probedPlace(node, "1", List.of("3")));
        assertEquals(new ExecutorPlace("hgx-a", Optional.of("GPU5")), NodeLocator.probedPlace(node, "2", List.of("5")));
        assertEquals(new ExecutorPlace("hgx-a", Optional.of("GPU2")), NodeLocator.probedPlace(node, "10", List.of()), "without GPU scheduling: id mod gpus");
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> NodeLocator.probedPlace(node, "1", List.of("12")));
        assertTrue(unknown.getMessage().contains("'12'"), unknown.getMessage());
    }

    @Test
    void theStandInProbeIsNamedLikeTheExecutorsHost()
            throws IOException
    {
        ClusterTopology cluster = TopologyFileReader.load(HGX);
        Path one = temp.resolve("one.json");
        Files.writeString(one, TopologyFileWriter.toText(new ClusterTopology("one", List.of(cluster.nodes().get(1)))));
        NodeTopology node = NodeLocator.probe(new MapConfigSource(Map.of(PluginConfigKeys.PROBE_OVERRIDE.name(), one.toString())), "10.0.0.7");
        assertEquals("10.0.0.7", node.hostname(), "peers know the executor by Spark's host name");
        assertEquals(8, node.gpus().size());
        IllegalArgumentException ambiguous = assertThrows(IllegalArgumentException.class,
                () -> NodeLocator.probe(new MapConfigSource(Map.of(PluginConfigKeys.PROBE_OVERRIDE.name(), HGX.toString())), "10.0.0.7"));
        assertTrue(ambiguous.getMessage().contains(PluginConfigKeys.PROBE_OVERRIDE.name()), ambiguous.getMessage());
    }
}
