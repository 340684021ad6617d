package dev.ferry.topology.file;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.topology.TestingFiles;
import dev.ferry.topology.model.ClusterTopology;
import dev.ferry.topology.model.FilePlacement;
import dev.ferry.topology.model.Gpu;
import dev.ferry.topology.model.LinkLayer;
import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.model.PathClass;
import dev.ferry.topology.model.Presence;
import dev.ferry.topology.model.Relation;
import dev.ferry.topology.report.DecisionReport;
import dev.ferry.topology.report.NodeDecisions;
import dev.ferry.topology.route.FileConsumer;
import dev.ferry.topology.route.Route;
import dev.ferry.topology.route.RouteDecision;
import dev.ferry.topology.route.RoutePolicy;
import dev.ferry.topology.route.RoutePolicyConfig;
import dev.ferry.topology.smi.NvidiaSmiTopology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TestTopologyFiles
{
    private static final RoutePolicy POLICY = new RoutePolicy(RoutePolicyConfig.defaults());

    static List<Path> examples()
    {
        return TestingFiles.exampleTopologies();
    }

    @Test
    void theFourRequiredExamplesShip()
    {
        List<String> names = examples().stream().map(path -> path.getFileName().toString()).toList();
        assertTrue(names.containsAll(List.of("dgx-h100-ib-2node.json", "pcie-roce-2node.json", "tcp-only-node.json", "workstation.json")), names.toString());
    }

    @ParameterizedTest
    @MethodSource("examples")
    void everyExampleLoadsDecidesAndRoundTrips(Path example, @TempDir Path temp)
    {
        ClusterTopology cluster = TopologyFileReader.load(example);
        assertFalse(cluster.nodes().isEmpty());
        DecisionReport.decide(cluster, POLICY);
        Path saved = temp.resolve("saved.json");
        TopologyFileWriter.save(cluster, saved);
        assertEquals(cluster, TopologyFileReader.load(saved));
    }

    @Test
    void dgxH100WithInfiniBandAndPeerMemory()
    {
        ClusterTopology cluster = load("dgx-h100-ib-2node.json");
        assertEquals(2, cluster.nodes().size());
        NodeTopology node = cluster.nodes().get(0);
        Gpu gpu = node.gpu("GPU3").orElseThrow();
        assertEquals(Optional.of("9.0"), gpu.computeCapability(), "gpuDefaults fill in what the capture lacks");
        assertEquals(LinkLayer.INFINIBAND, node.nic("mlx5_7").orElseThrow().linkLayer());
        assertEquals(PathClass.NODE, node.relation("GPU0", "mlx5_1").orElseThrow().pathClass(), "capture cells stay where the file adds nothing");
        assertEquals("file", node.relation("GPU0", "mlx5_0").orElseThrow().source(), "file relations override capture cells");

        DecisionReport report = DecisionReport.decide(cluster, POLICY);
        NodeDecisions decisions = report.nodes().get(0);
        assertTrue(decisions.gpuPairs().stream().allMatch(decision -> decision.route() == Route.NVLINK));
        assertEquals(370.8, decisions.gpuPairs().get(0).bandwidthGBps(), 1e-9);
        assertEquals(Route.GPUDIRECT_RDMA, POLICY.gpuToNic(node, "GPU0", "mlx5_0").route());
        assertEquals(48.0, POLICY.gpuToNic(node, "GPU0", "mlx5_0").bandwidthGBps(), 1e-9);
        assertEquals(Route.RDMA_HOST_STAGED, POLICY.gpuToNic(node, "GPU0", "mlx5_4").route());
        RouteDecision network = report.network().get(0);
        assertEquals(Route.RDMA, network.route());
        assertTrue(network.reason().contains("InfiniBand"));
        assertEquals(8, report.gpuNetwork().size());
        assertTrue(report.gpuNetwork().stream().allMatch(decision -> decision.route() == Route.GPUDIRECT_RDMA));
        assertEquals(Route.GDS, POLICY.gpuToNvme(node, "GPU0", "nvme0").route());
        assertEquals(Route.GDS, POLICY.gpuToNvme(node, "GPU4", "nvme1").route());
        assertEquals(Route.BOUNCE, POLICY.gpuToNvme(node, "GPU4", "nvme0").route());
        FilePlacement lvm = new FilePlacement("/raid/x", "/raid", "ext4", List.of("data=ordered"), List.of("md0", "nvme0n1"), Optional.of("nvme0"));
        assertEquals(Route.BOUNCE, POLICY.gpuToFile(node, Optional.of("GPU0"), lvm, FileConsumer.DEVICE).route());
    }

    @Test
    void pcieNodesOnRoceWithoutPeerMemory()
    {
        ClusterTopology cluster = load("pcie-roce-2node.json");
        NodeTopology node = cluster.nodes().get(0);
        assertEquals(Route.PCIE_P2P, POLICY.gpuToGpu(node, "GPU0", "GPU1").route());
        RouteDecision vetoed = POLICY.gpuToGpu(node, "GPU2", "GPU3");
        assertEquals(Route.HOST_STAGED, vetoed.route());
        assertTrue(vetoed.vetoes().get(0).contains("IOH_TOPOLOGY_NOT_SUPPORTED"));
        assertEquals(Route.HOST_STAGED, POLICY.gpuToGpu(node, "GPU0", "GPU2").route());
        for (Gpu gpu : node.gpus()) {
            assertEquals(Route.RDMA_HOST_STAGED, POLICY.gpuToNic(node, gpu.name(), "mlx5_0").route());
        }
        RouteDecision network = POLICY.nodeToNode(cluster.nodes().get(0), cluster.nodes().get(1));
        assertEquals(Route.RDMA, network.route());
        assertTrue(network.reason().contains("RoCE"), network.reason());
        RouteDecision gpus = POLICY.gpuAcrossNodes(cluster.nodes().get(0), "GPU0", cluster.nodes().get(1), "GPU0");
        assertEquals(Route.RDMA_HOST_STAGED, gpus.route());
    }

    @Test
    void tcpOnlyNodeAndWorkstation()
    {
        NodeTopology tcp = load("tcp-only-node.json").nodes().get(0);
        assertTrue(tcp.nics().isEmpty());
        NodeTopology roce = load("pcie-roce-2node.json").nodes().get(0);
        RouteDecision network = POLICY.nodeToNode(tcp, roce);
        assertEquals(Route.TCP, network.route());
        assertTrue(network.vetoes().contains("tcp-node has no active RDMA NIC"), network.vetoes().toString());
        assertEquals(Route.HOST_STAGED, POLICY.gpuToGpu(tcp, "GPU0", "GPU1").route(), "NODE counts as PHB, beyond PXB");

        NodeTopology workstation = load("workstation.json").nodes().get(0);
        assertEquals(Presence.ABSENT, workstation.kernelFacts().nvidiaFs().presence());
        assertEquals(Route.HOST_STAGED, POLICY.gpuToGpu(workstation, "GPU0", "GPU1").route());
        RouteDecision nvme = POLICY.gpuToNvme(workstation, "GPU0", "nvme0");
        assertEquals(Route.BOUNCE, nvme.route());
        assertTrue(nvme.vetoes().stream().anyMatch(veto -> veto.contains("PHB")), nvme.vetoes().toString());
    }

    @Test
    void captureNodeEqualsTheCaptureWithFactsAdded(@TempDir Path temp)
            throws IOException
    {
        Files.copy(TestingFiles.capture("dgx1-v100-4nic.txt"), temp.resolve("dgx1.txt"));
        Files.writeString(temp.resolve("t.json"), """
                {"nodes": [{"hostname": "dgx1", "nvidiaSmi": "dgx1.txt",
                  "nics": [{"name": "mlx5_0", "linkLayer": "INFINIBAND", "ports": [{"active": true, "rateGbps": 100}]}],
                  "kernel": {"peerMemory": {"presence": "PRESENT", "mechanism": "nv_peer_mem"}}}]}
                """);
        NodeTopology node = TopologyFileReader.load(temp.resolve("t.json")).nodes().get(0);
        NodeTopology capture = NvidiaSmiTopology.read(temp.resolve("dgx1.txt"), "dgx1");
        assertEquals(capture.gpus(), node.gpus());
        assertEquals(capture.relations(), node.relations());
        assertEquals(LinkLayer.INFINIBAND, node.nic("mlx5_0").orElseThrow().linkLayer());
        assertEquals(LinkLayer.UNKNOWN, node.nic("mlx5_1").orElseThrow().linkLayer());
        assertEquals(Route.GPUDIRECT_RDMA, POLICY.gpuToNic(node, "GPU1", "mlx5_0").route());
    }

    @Test
    void relationDetailsAndNvlinkVersionsRoundTrip(@TempDir Path temp)
            throws IOException
    {
        Files.writeString(temp.resolve("detail.json"), """
                {"nodes": [{"hostname": "h", "gpus": [{"index": 0}, {"index": 1}], "nvmes": [{"controller": "nvme0"}],
                  "relations": [
                    {"a": "GPU0", "b": "GPU1", "path": "NV18", "nvlinkVersion": "4.0", "source": "nvml", "detail": "NVLinks 18 through NVSwitches"},
                    {"a": "GPU0", "b": "nvme0", "path": "PIX", "pcie": {"gen": 4, "width": 4}, "detail": "both directly below 0000:00:01.0"}]}]}
                """);
        ClusterTopology cluster = TopologyFileReader.load(temp.resolve("detail.json"));
        Relation nvlink = cluster.nodes().get(0).relation("GPU0", "GPU1").orElseThrow();
        assertEquals(Optional.of("4.0"), nvlink.nvlinkVersion());
        assertEquals(Optional.of("NVLinks 18 through NVSwitches"), nvlink.detail());
        assertEquals("NV18 from nvml, NVLink 4.0: NVLinks 18 through NVSwitches", nvlink.describe());
        assertEquals("PIX from file, PCIe Gen4 x4: both directly below 0000:00:01.0",
                cluster.nodes().get(0).relation("GPU0", "nvme0").orElseThrow().describe());
        String text = TopologyFileWriter.toText(cluster);
        assertTrue(text.contains("\"nvlinkVersion\" : \"4.0\""), text);
        assertTrue(text.contains("\"detail\" : \"both directly below 0000:00:01.0\""), text);
        assertEquals(cluster, TopologyFileReader.parse("saved", temp, text, "detail"));

        assertError(temp, "version.json", "{\"nodes\": [{\"hostname\": \"h\", \"gpus\": [{\"index\": 0}], \"nvmes\": [{\"controller\": \"nvme0\"}], "
                        + "\"relations\": [{\"a\": \"GPU0\", \"b\": \"nvme0\", \"path\": \"PIX\", \"nvlinkVersion\": \"4.0\"}]}]}",
                "version.json: $.nodes[0].relations[0]: Only NVLINK has an NVLink version");
    }

    @Test
    void errorsNameTheFileAndThePath(@TempDir Path temp)
            throws IOException
    {
        assertError(temp, "broken.json", "{\"nodes\": [", "broken.json: invalid JSON at line 1");
        assertError(temp, "field.json", "{\"nodes\": [{\"hostname\": \"h\", \"gpu\": []}]}", "field.json: $.nodes[0].gpu: unknown field");
        assertError(temp, "layer.json", "{\"nodes\": [{\"hostname\": \"h\", \"nics\": [{\"name\": \"mlx5_0\", \"linkLayer\": \"IB\"}]}]}",
                "layer.json: $.nodes[0].nics[0].linkLayer: expected one of INFINIBAND, ROCE, IWARP, UNKNOWN, got 'IB'");
        assertError(temp, "index.json", "{\"nodes\": [{\"hostname\": \"h\", \"gpus\": [{\"index\": \"zero\"}]}]}",
                "index.json: $.nodes[0].gpus[0].index: expected an integer");
        assertError(temp, "relation.json", "{\"nodes\": [{\"hostname\": \"h\", \"gpus\": [{\"index\": 0}], \"relations\": [{\"a\": \"GPU0\", \"b\": \"nvme9\", \"path\": \"PIX\"}]}]}",
                "relation.json: $.nodes[0]: Node h: relation names unknown device nvme9");
        assertError(temp, "cell.json", "{\"nodes\": [{\"hostname\": \"h\", \"gpus\": [{\"index\": 0}, {\"index\": 1}], \"relations\": [{\"a\": \"GPU0\", \"b\": \"GPU1\", \"path\": \"FAR\"}]}]}",
                "cell.json: $.nodes[0].relations[0].path: Unknown topology cell 'FAR'");
        assertError(temp, "missing.json", "{\"nodes\": [{\"hostname\": \"h\", \"nvidiaSmi\": \"nope.txt\"}]}",
                "missing.json: $.nodes[0].nvidiaSmi: cannot read nvidia-smi capture");
        Files.writeString(temp.resolve("bad.txt"), "        GPU0    GPU1\nGPU0     X      PIX\nGPU1    PXB      X\n");
        assertError(temp, "badcapture.json", "{\"nodes\": [{\"hostname\": \"h\", \"nvidiaSmi\": \"bad.txt\"}]}",
                "badcapture.json: $.nodes[0].nvidiaSmi: Malformed nvidia-smi topo -m output in bad.txt, line 3");
        assertError(temp, "twice.json", "{\"nodes\": [{\"hostname\": \"h\"}, {\"hostname\": \"h\"}]}", "host name used twice: h");
        FerryException missingFile = assertThrows(FerryException.class, () -> TopologyFileReader.load(temp.resolve("absent.json")));
        assertTrue(missingFile.getMessage().contains("absent.json"));
    }

    private static void assertError(Path temp, String name, String json, String expected)
            throws IOException
    {
        Path file = temp.resolve(name);
        Files.writeString(file, json);
        FerryException error = assertThrows(FerryException.class, () -> TopologyFileReader.load(file));
        assertEquals(ErrorCategory.USER_ERROR, error.category());
        assertTrue(error.getMessage().contains(expected), error.getMessage());
    }

    private static ClusterTopology load(String name)
    {
        return TopologyFileReader.load(TestingFiles.examplesDirectory().resolve(name));
    }
}
