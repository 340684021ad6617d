package dev.ferry.topology.report;

import dev.ferry.topology.TestingFiles;
import dev.ferry.topology.file.TopologyFileReader;
import dev.ferry.topology.model.ClusterTopology;
import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.route.RoutePolicy;
import dev.ferry.topology.route.RoutePolicyConfig;
import dev.ferry.topology.smi.NvidiaSmiTopology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
}
