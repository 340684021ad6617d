package dev.ferry.topology.route;

import dev.ferry.topology.TestingFiles;
import dev.ferry.topology.model.Gpu;
import dev.ferry.topology.model.Nic;
import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.model.PeerMemory;
import dev.ferry.topology.report.DecisionReport;
import dev.ferry.topology.report.TextReport;
import dev.ferry.topology.model.ClusterTopology;
import dev.ferry.topology.smi.NvidiaSmiTopology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Route decisions on the real captures: the named cases, then the rules applied cell by cell. */
class TestCaptureRoutes
{
    private static final RoutePolicy POLICY = new RoutePolicy(RoutePolicyConfig.defaults());

    static List<Path> captures()
    {
        return TestingFiles.captures();
    }

    @Test
    void dgx1()
    {
        NodeTopology node = NvidiaSmiTopology.read(TestingFiles.capture("dgx1-v100-4nic.txt"));
        assertEquals(Route.NVLINK, POLICY.gpuToGpu(node, "GPU0", "GPU1").route());
        assertEquals(Route.NVLINK, POLICY.gpuToGpu(node, "GPU0", "GPU3").route());
        assertEquals(40.0, POLICY.gpuToGpu(node, "GPU0", "GPU3").bandwidthGBps(), 1e-9, "NV2 at the SM80 fallback of 20 GB/s per link");
        assertTrue(POLICY.gpuToGpu(node, "GPU0", "GPU3").bandwidthSource().contains("compute capability unknown"));
        RouteDecision sys = POLICY.gpuToGpu(node, "GPU0", "GPU5");
        assertEquals(Route.HOST_STAGED, sys.route());
        assertEquals(Route.PCIE_P2P, sys.runnerUp().orElseThrow().route());
        assertTrue(sys.runnerUp().orElseThrow().whyNot().contains("SYS is beyond spark.ferry.route.p2pLevel=PXB (default)"));

        NodeTopology withPeerMemory = withPeerMemory(node, PeerMemory.present("nvidia_peermem", "test"));
        NodeTopology withoutPeerMemory = withPeerMemory(node, PeerMemory.absent("test: module not loaded"));
        assertEquals(Route.GPUDIRECT_RDMA, POLICY.gpuToNic(withPeerMemory, "GPU0", "mlx5_0").route());
        RouteDecision staged = POLICY.gpuToNic(withoutPeerMemory, "GPU0", "mlx5_0");
        assertEquals(Route.RDMA_HOST_STAGED, staged.route());
        assertTrue(staged.vetoes().get(0).contains("no peer-memory module"), staged.vetoes().toString());
        // Unknown (a bare capture) counts as absent, and says how to state it
        RouteDecision unknown = POLICY.gpuToNic(node, "GPU0", "mlx5_0");
        assertEquals(Route.RDMA_HOST_STAGED, unknown.route());
        assertTrue(unknown.vetoes().get(0).contains("--peermem yes"), unknown.vetoes().toString());
        assertEquals(Route.RDMA_HOST_STAGED, POLICY.gpuToNic(withPeerMemory, "GPU0", "mlx5_1").route(), "PHB is beyond PXB");
        assertEquals(Route.RDMA_HOST_STAGED, POLICY.gpuToNic(withPeerMemory, "GPU0", "mlx5_2").route(), "SYS is beyond PXB");
    }

    @Test
    void dgxA100AndHgxH100()
    {
        for (String capture : List.of("dgx-a100.txt", "hgx-h100.txt")) {
            NodeTopology node = withPeerMemory(NvidiaSmiTopology.read(TestingFiles.capture(capture)), PeerMemory.present("nvidia_peermem", "test"));
            for (Gpu a : node.gpus()) {
                for (Gpu b : node.gpus()) {
                    if (a.index() < b.index()) {
                        assertEquals(Route.NVLINK, POLICY.gpuToGpu(node, a.name(), b.name()).route(), capture + " " + a.name() + "-" + b.name());
                    }
                }
                // Each GPU's own NIC is the closest one; it gets GPUDirect RDMA, the rest are staged
                Nic own = POLICY.bestNic(node, a.name()).orElseThrow();
                assertEquals(Route.GPUDIRECT_RDMA, POLICY.gpuToNic(node, a.name(), own.name()).route(), capture + " " + a.name());
                for (Nic nic : node.nics()) {
                    String cell = node.relation(a.name(), nic.name()).orElseThrow().cell();
                    if (cell.equals("NODE") || cell.equals("SYS")) {
                        assertEquals(Route.RDMA_HOST_STAGED, POLICY.gpuToNic(node, a.name(), nic.name()).route());
                    }
                }
            }
        }
        NodeTopology a100 = NvidiaSmiTopology.read(TestingFiles.capture("dgx-a100.txt"));
        assertEquals("mlx5_2", POLICY.bestNic(a100, "GPU2").orElseThrow().name());
        NodeTopology h100 = NvidiaSmiTopology.read(TestingFiles.capture("hgx-h100.txt"));
        assertEquals("mlx5_5", POLICY.bestNic(h100, "GPU5").orElseThrow().name());
        assertEquals(360.0, POLICY.gpuToGpu(h100, "GPU0", "GPU1").bandwidthGBps(), 1e-9, "NV18 x SM80 fallback: the capture lacks the compute capability");
    }

    @Test
    void desktopAndAwsP4d()
    {
        NodeTopology desktop = NvidiaSmiTopology.read(TestingFiles.capture("desktop-2x1080ti.txt"));
        RouteDecision phb = POLICY.gpuToGpu(desktop, "GPU0", "GPU1");
        assertEquals(Route.HOST_STAGED, phb.route());
        assertEquals("PHB", phb.path());
        NodeTopology p4d = NvidiaSmiTopology.read(TestingFiles.capture("aws-p4d.txt"));
        assertTrue(p4d.nics().isEmpty());
        for (RouteDecision decision : DecisionReport.decide(ClusterTopology.single(p4d), POLICY).nodes().get(0).gpuPairs()) {
            assertEquals(Route.NVLINK, decision.route());
            assertEquals("NV12", decision.path());
        }
    }

    /**
     * The rules, applied to every cell of every capture. The cells are read here by a naive tokenizer
     * independent of the parser, so a misparse shows up as a disagreement.
     */
    @ParameterizedTest
    @MethodSource("captures")
    void rulesHoldForEveryCell(Path capture)
    {
        Map<String, Map<String, String>> cells = naiveCells(TestingFiles.read(capture));
        NodeTopology bare = NvidiaSmiTopology.read(capture);
        NodeTopology present = withPeerMemory(bare, PeerMemory.present("nvidia_peermem", "test"));
        NodeTopology absent = withPeerMemory(bare, PeerMemory.absent("test"));
        int checked = 0;
        for (Gpu gpu : bare.gpus()) {
            for (Gpu other : bare.gpus()) {
                if (gpu.index() >= other.index()) {
                    continue;
                }
                String cell = cells.get(gpu.name()).get(other.name());
                RouteDecision decision = POLICY.gpuToGpu(bare, gpu.name(), other.name());
                assertEquals(cell, decision.path());
                Route expected = cell.startsWith("NV") ? Route.NVLINK : (cell.equals("PIX") || cell.equals("PXB")) ? Route.PCIE_P2P : Route.HOST_STAGED;
                assertEquals(expected, decision.route(), capture + " " + gpu.name() + "-" + other.name() + " " + cell);
                assertTrue(decision.reason().contains(cell), decision.reason());
                checked++;
            }
            for (Nic nic : bare.nics()) {
                String cell = cells.get(gpu.name()).get(nicColumn(cells, bare, nic));
                boolean close = cell.equals("PIX") || cell.equals("PXB");
                assertEquals(close ? Route.GPUDIRECT_RDMA : Route.RDMA_HOST_STAGED, POLICY.gpuToNic(present, gpu.name(), nic.name()).route());
                assertEquals(Route.RDMA_HOST_STAGED, POLICY.gpuToNic(absent, gpu.name(), nic.name()).route());
                assertEquals(cell, POLICY.gpuToNic(absent, gpu.name(), nic.name()).path());
                checked++;
            }
        }
        assertTrue(checked > 0);
        String text = TextReport.render(DecisionReport.decide(ClusterTopology.single(bare), POLICY));
        assertTrue(text.contains("GPU <-> GPU") || bare.gpus().size() == 1, text);
    }

    private static NodeTopology withPeerMemory(NodeTopology node, PeerMemory peerMemory)
    {
        return node.toBuilder().kernelFacts(node.kernelFacts().withPeerMemory(peerMemory)).build();
    }

    /** The matrix column of a NIC: its own name, or the NICk whose legend line names it. */
    private static String nicColumn(Map<String, Map<String, String>> cells, NodeTopology node, Nic nic)
    {
        if (cells.containsKey(nic.name())) {
            return nic.name();
        }
        return "NIC" + node.nics().indexOf(nic);
    }

    private static Map<String, Map<String, String>> naiveCells(String text)
    {
        List<String> columns = new ArrayList<>();
        Map<String, Map<String, String>> cells = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            String[] tokens = line.trim().split("\\s+");
            if (columns.isEmpty()) {
                if (tokens[0].equals("GPU0")) {
                    for (String token : tokens) {
                        if (token.equals("CPU")) {
                            break;
                        }
                        columns.add(token);
                    }
                }
                continue;
            }
            if (line.isBlank()) {
                break;
            }
            Map<String, String> row = new LinkedHashMap<>();
            for (int i = 0; i < columns.size(); i++) {
                row.put(columns.get(i), tokens[i + 1]);
            }
            cells.put(tokens[0], row);
        }
        return cells;
    }
}
