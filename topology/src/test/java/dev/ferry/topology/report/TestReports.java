package dev.ferry.topology.report;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ferry.topology.TestingFiles;
import dev.ferry.topology.file.TopologyFileReader;
import dev.ferry.topology.model.ClusterTopology;
import dev.ferry.topology.model.Gpu;
import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.model.PathClass;
import dev.ferry.topology.model.PcieLink;
import dev.ferry.topology.model.Relation;
import dev.ferry.topology.route.RoutePolicy;
import dev.ferry.topology.route.RoutePolicyConfig;
import dev.ferry.topology.smi.NvidiaSmiTopology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TestReports
{
    private static final RoutePolicy POLICY = new RoutePolicy(RoutePolicyConfig.defaults());

    static List<Path> captures()
    {
        return TestingFiles.captures();
    }

    /** The printed matrix is itself valid {@code nvidia-smi topo -m} text describing the same devices and relations. */
    @ParameterizedTest
    @MethodSource("captures")
    void printedMatrixReadsBackToTheSameTopology(Path capture)
    {
        NodeTopology node = NvidiaSmiTopology.read(capture);
        NodeTopology reread = NvidiaSmiTopology.parse(node.hostname(), "printed", MatrixPrinter.print(node));
        assertEquals(node.gpus(), reread.gpus());
        assertEquals(node.nics(), reread.nics());
        assertEquals(node.relations(), reread.relations());
    }

    @Test
    void textReportCoversEverySectionOfACluster()
    {
        ClusterTopology cluster = TopologyFileReader.load(TestingFiles.examplesDirectory().resolve("dgx-h100-ib-2node.json"));
        DecisionReport report = DecisionReport.decide(cluster, POLICY);
        assertEquals(28, report.nodes().get(0).gpuPairs().size());
        assertEquals(64, report.nodes().get(0).gpuNics().size());
        assertEquals(16, report.nodes().get(0).gpuNvmes().size());
        String text = TextReport.render(report);
        for (String expected : List.of("== Node dgx-a ==", "== Node dgx-b ==", "GPU <-> GPU:", "GPU <-> NIC:", "GPU <- NVMe (GPUDirect Storage):",
                "== Between nodes ==", "Host memory:", "GPU-resident blocks:", "nvme0", "mlx5_7: InfiniBand, active 400 Gb/s",
                "peer memory (GPUDirect RDMA): PRESENT via nvidia_peermem", "runner-up: ", "NCCL SM90 NVLink 20.6 GB/s x 18 links")) {
            assertTrue(text.contains(expected), expected);
        }
    }

    @Test
    void decisionsShowHowTheirPathIsKnown()
    {
        NodeTopology node = NodeTopology.builder("h")
                .gpu(Gpu.builder(0).computeCapability("9.0").build())
                .gpu(Gpu.builder(1).computeCapability("9.0").build())
                .gpu(Gpu.builder(2).computeCapability("9.0").build())
                .relation(new Relation("GPU0", "GPU1", PathClass.PIX, 0, Optional.of(new PcieLink(4, 16)), "sysfs")
                        .withDetail("both directly below 0000:16:00.0: a single PCIe switch; 0000:18:00.0 - 0000:17:00.0 - 0000:16:00.0"))
                .relation(Relation.nvlink("GPU0", "GPU2", 18, "nvml").withNvlinkVersion("4.0").withDetail("NVLinks 18 through NVSwitches"))
                .build();
        DecisionReport report = DecisionReport.decide(ClusterTopology.single(node), POLICY);
        String text = TextReport.render(report);
        assertTrue(text.contains("\n      path: PIX from sysfs, PCIe Gen4 x16: both directly below 0000:16:00.0: a single PCIe switch; "
                + "0000:18:00.0 - 0000:17:00.0 - 0000:16:00.0\n"), text);
        assertTrue(text.contains("\n      path: NV18 from nvml, NVLink 4.0: NVLinks 18 through NVSwitches\n"), text);
        // A pair without a known relation has no path line
        assertFalse(text.contains("path: ?"), text);

        JsonNode pairs = JsonReport.toJson(report).get("pairs");
        assertEquals("PIX from sysfs, PCIe Gen4 x16: both directly below 0000:16:00.0: a single PCIe switch; 0000:18:00.0 - 0000:17:00.0 - 0000:16:00.0",
                pairs.get(0).get("pathDetail").asText());
        assertEquals("NV18 from nvml, NVLink 4.0: NVLinks 18 through NVSwitches", pairs.get(1).get("pathDetail").asText());
        assertFalse(pairs.get(2).has("pathDetail"), pairs.get(2).toString());
        JsonNode relation = JsonReport.toJson(report).get("nodes").get(0).get("relations").get(1);
        assertEquals("4.0", relation.get("nvlinkVersion").asText());
        assertEquals("NVLinks 18 through NVSwitches", relation.get("detail").asText());
    }
}
