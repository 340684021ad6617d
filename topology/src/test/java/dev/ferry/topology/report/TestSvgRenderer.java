package dev.ferry.topology.report;

import dev.ferry.topology.TestingFiles;
import dev.ferry.topology.file.TopologyFileReader;
import dev.ferry.topology.model.ClusterTopology;
import dev.ferry.topology.model.Gpu;
import dev.ferry.topology.model.Nic;
import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.model.NvmeDrive;
import dev.ferry.topology.model.PathClass;
import dev.ferry.topology.model.Relation;
import dev.ferry.topology.route.RouteDecision;
import dev.ferry.topology.route.RoutePolicy;
import dev.ferry.topology.route.RoutePolicyConfig;
import dev.ferry.topology.smi.NvidiaSmiTopology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;

import java.io.StringReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TestSvgRenderer
{
    private static final RoutePolicy POLICY = new RoutePolicy(RoutePolicyConfig.defaults());

    static List<Path> examples()
    {
        return TestingFiles.exampleTopologies();
    }

    static List<Path> captures()
    {
        return TestingFiles.captures();
    }

    @ParameterizedTest
    @MethodSource("examples")
    void everyExampleTopologyDrawsAsWellFormedSvgNamingEveryDeviceAndRoute(Path file)
            throws Exception
    {
        checkDrawing(DecisionReport.decide(TopologyFileReader.load(file), POLICY));
    }

    @ParameterizedTest
    @MethodSource("captures")
    void everyCaptureDrawsAsWellFormedSvgNamingEveryDeviceAndRoute(Path capture)
            throws Exception
    {
        checkDrawing(DecisionReport.decide(ClusterTopology.single(NvidiaSmiTopology.read(capture)), POLICY));
    }

    @Test
    void dgxClusterShowsSwitchGpuDirectRdmaGdsAndTheInfiniBandNetwork()
            throws Exception
    {
        DecisionReport report = DecisionReport.decide(TopologyFileReader.load(TestingFiles.examplesDirectory().resolve("dgx-h100-ib-2node.json")), POLICY);
        String svg = SvgRenderer.render(report);
        List<String> texts = texts(parse(svg));
        for (String expected : List.of("NVSwitch: 8 GPUs, every pair NVLINK", "NV18", "PIX GPUDIRECT_RDMA", "PIX GDS", "dgx-a <-> dgx-b",
                "host: RDMA over InfiniBand", "GPU: GPUDIRECT_RDMA", "InfiniBand 400G")) {
            assertTrue(texts.contains(expected), expected + " in " + texts);
        }
        // One bar, not 28 NVLink arcs per node; one GPUDirect RDMA link per NIC (its PIX GPU)
        assertEquals(0, count(svg, "<path "));
        assertEquals(16, texts.stream().filter("PIX GPUDIRECT_RDMA"::equals).count());
        assertEquals(svg, SvgRenderer.render(report), "deterministic");
    }

    @Test
    void pcieClusterShowsStagedRoutesOverRoce()
            throws Exception
    {
        DecisionReport report = DecisionReport.decide(TopologyFileReader.load(TestingFiles.examplesDirectory().resolve("pcie-roce-2node.json")), POLICY);
        List<String> texts = texts(parse(SvgRenderer.render(report)));
        for (String expected : List.of("PIX PCIE_P2P", "PXB RDMA_HOST_STAGED", "host: RDMA over RoCE", "GPU: RDMA_HOST_STAGED")) {
            assertTrue(texts.contains(expected), expected + " in " + texts);
        }
    }

    @Test
    void directNvlinkMeshIsDrawnPairByPairWithoutASwitch()
            throws Exception
    {
        DecisionReport report = DecisionReport.decide(ClusterTopology.single(NvidiaSmiTopology.read(TestingFiles.capture("dgx1-v100-4nic.txt"))), POLICY);
        String svg = SvgRenderer.render(report);
        List<String> texts = texts(parse(svg));
        assertFalse(texts.stream().anyMatch(text -> text.startsWith("NVSwitch")), texts.toString());
        assertTrue(texts.stream().anyMatch(text -> text.matches("NV\\d+ NVLINK")), texts.toString());
    }

    @Test
    void bytesAreShownPerLinkPerNodePairAndPerRoute()
            throws Exception
    {
        DecisionReport report = DecisionReport.decide(TopologyFileReader.load(TestingFiles.examplesDirectory().resolve("dgx-h100-ib-2node.json")), POLICY);
        String svg = SvgRenderer.render(report, Map.of(
                SvgRenderer.linkKey("dgx-a", "mlx5_0", "GPU0"), 3L * 1024 * 1024 * 1024,
                SvgRenderer.linkKey("dgx-a", "GPU1", SvgRenderer.NVSWITCH), 1536L,
                SvgRenderer.networkKey("dgx-b", "dgx-a"), 5L * 1024 * 1024,
                "RDMA", 42L,
                "no such link", 7L));
        List<String> texts = texts(parse(svg));
        for (String expected : List.of("PIX GPUDIRECT_RDMA 3.0 GiB", "NV18 1.5 KiB", "5.0 MiB", "Bytes per route:", "RDMA: 42 B")) {
            assertTrue(texts.contains(expected), expected + " in " + texts);
        }
        assertEquals("dgx-a:GPU0<->mlx5_0", SvgRenderer.linkKey("dgx-a", "mlx5_0", "GPU0"));
        assertThrows(IllegalArgumentException.class, () -> SvgRenderer.render(report, Map.of("RDMA", -1L)));
    }

    @Test
    void textIsEscaped()
            throws Exception
    {
        String host = "a<b>&\"c'\u0001";
        NodeTopology node = NodeTopology.builder(host)
                .gpu(Gpu.builder(0).model("Model <&>").build())
                .gpu(Gpu.of(1))
                .nic(Nic.named("mlx&5"))
                .nvme(new NvmeDrive("nvme<0>", java.util.Optional.empty(), "pcie", List.of(), java.util.OptionalInt.empty()))
                .relation(Relation.pcie("GPU0", "GPU1", PathClass.PHB, "test"))
                .relation(Relation.pcie("GPU0", "mlx&5", PathClass.PIX, "test"))
                .build();
        String svg = SvgRenderer.render(DecisionReport.decide(ClusterTopology.single(node), POLICY));
        List<String> texts = texts(parse(svg));
        assertTrue(texts.contains("a<b>&\"c'?"), texts.toString());
        assertTrue(texts.contains("mlx&5"), texts.toString());
        assertTrue(texts.contains("nvme<0>"), texts.toString());
        assertEquals("&lt;x&gt; &amp; &quot;y&quot; &apos;z&apos; ?", SvgRenderer.escape("<x> & \"y\" 'z' \u0007"));
    }

    /** Well-formed, names every node, GPU, NIC and NVMe drive, and labels each device's closest link and each node pair's route. */
    private static void checkDrawing(DecisionReport report)
            throws Exception
    {
        String svg = SvgRenderer.render(report);
        Document document = parse(svg);
        assertEquals("svg", document.getDocumentElement().getTagName());
        List<String> texts = texts(document);
        for (NodeDecisions decisions : report.nodes()) {
            NodeTopology node = decisions.node();
            assertTrue(texts.contains(node.hostname()), node.hostname());
            node.gpus().forEach(gpu -> assertTrue(texts.contains(gpu.name()), gpu.name() + " in " + texts));
            node.nics().forEach(nic -> assertTrue(texts.contains(nic.name()), nic.name() + " in " + texts));
            node.nvmes().forEach(nvme -> assertTrue(texts.contains(nvme.controller()), nvme.controller() + " in " + texts));
            for (Nic nic : node.nics()) {
                assertTrue(hasLabelFor(texts, decisions.gpuNics(), nic.name()), nic.name() + " has no link label in " + texts);
            }
            for (NvmeDrive nvme : node.nvmes()) {
                assertTrue(hasLabelFor(texts, decisions.gpuNvmes(), nvme.controller()), nvme.controller() + " has no link label in " + texts);
            }
            if (node.gpus().size() > 1) {
                assertTrue(texts.stream().anyMatch(text -> text.startsWith("NVSwitch: ")) || decisions.gpuPairs().stream()
                        .anyMatch(pair -> texts.contains(pair.path() + " " + pair.route())), "no GPU pair label in " + texts);
            }
        }
        for (RouteDecision network : report.network()) {
            assertTrue(texts.contains(network.source() + " <-> " + network.target()), texts.toString());
            assertTrue(texts.stream().anyMatch(text -> text.startsWith("host: " + network.route() + " over ")), texts.toString());
        }
    }

    private static boolean hasLabelFor(List<String> texts, List<RouteDecision> decisions, String device)
    {
        return decisions.stream().filter(decision -> decision.target().equals(device)).anyMatch(decision -> texts.contains(decision.path() + " " + decision.route()));
    }

    private static Document parse(String svg)
            throws Exception
    {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        factory.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
        return factory.newDocumentBuilder().parse(new InputSource(new StringReader(svg)));
    }

    private static List<String> texts(Document document)
    {
        NodeList nodes = document.getElementsByTagNameNS("http://www.w3.org/2000/svg", "text");
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            texts.add(nodes.item(i).getTextContent());
        }
        return texts;
    }

    private static int count(String text, String part)
    {
        int count = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            count++;
        }
        return count;
    }
}
