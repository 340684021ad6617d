package dev.ferry.topology.report;

import dev.ferry.topology.TestingFiles;
import dev.ferry.topology.file.TopologyFileReader;
import dev.ferry.topology.route.Route;
import dev.ferry.topology.route.RoutePolicy;
import dev.ferry.topology.route.RoutePolicyConfig;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TestLinkTraffic
{
    private static final RoutePolicy POLICY = new RoutePolicy(RoutePolicyConfig.defaults());

    private static DecisionReport dgx()
            throws Exception
    {
        return DecisionReport.decide(TopologyFileReader.load(TestingFiles.examplesDirectory().resolve("dgx-h100-ib-2node.json")), POLICY);
    }

    private static DecisionReport roce()
            throws Exception
    {
        return DecisionReport.decide(TopologyFileReader.load(TestingFiles.examplesDirectory().resolve("pcie-roce-2node.json")), POLICY);
    }

    private static LinkTraffic.Place place(String host, String gpu)
    {
        return new LinkTraffic.Place(host, Optional.of(gpu));
    }

    @Test
    void dgxReadsGoOnTheReadersSwitchLinkItsNicAndTheNetworkLine()
            throws Exception
    {
        Map<String, LinkTraffic.Place> places = Map.of("0", place("dgx-a", "GPU0"), "1", place("dgx-b", "GPU0"), "2", place("dgx-a", "GPU1"));
        LinkTraffic.Attribution traffic = LinkTraffic.attribute(dgx(), places, Map.of(
                "0", Map.of("LOCAL", 5L, "NVLINK", 100L, "GPUDIRECT_RDMA", 30L),
                "1", Map.of("GPUDIRECT_RDMA", 40L),
                "2", Map.of("NVLINK", 7L)));
        Map<String, Long> bytes = traffic.bytes();
        assertEquals(100L, bytes.get(SvgRenderer.linkKey("dgx-a", "GPU0", SvgRenderer.NVSWITCH)));
        assertEquals(7L, bytes.get(SvgRenderer.linkKey("dgx-a", "GPU1", SvgRenderer.NVSWITCH)));
        assertEquals(30L, bytes.get(SvgRenderer.linkKey("dgx-a", "GPU0", "mlx5_0")));
        assertEquals(40L, bytes.get(SvgRenderer.linkKey("dgx-b", "GPU0", "mlx5_0")));
        assertEquals(70L, bytes.get(SvgRenderer.networkKey("dgx-b", "dgx-a")));
        assertEquals(107L, bytes.get("NVLINK"));
        assertEquals(70L, bytes.get("GPUDIRECT_RDMA"));
        assertFalse(bytes.containsKey("LOCAL"), "LOCAL is no link: " + bytes);
        assertTrue(traffic.notes().isEmpty(), traffic.notes().toString());

        // And the drawing shows them on those links.
        String svg = SvgRenderer.render(dgx(), bytes);
        assertTrue(svg.contains("NV18 100 B"), svg);
        assertTrue(svg.contains("PIX GPUDIRECT_RDMA 30 B"), svg);
        assertTrue(svg.contains("GPUDIRECT_RDMA: 70 B"), svg);
    }

    @Test
    void fileReadsGoOnTheReadersNvmeLinkUnderTheRouteTheyTookAndAreDrawnSo()
            throws Exception
    {
        Map<String, LinkTraffic.Place> places = Map.of("0", place("dgx-a", "GPU0"), "1", place("dgx-a", "GPU1"));
        LinkTraffic.Attribution traffic = LinkTraffic.attribute(dgx(), places, Map.of(
                "0", Map.of("BOUNCE", 425L),
                "1", Map.of("GDS", 9L)));
        Map<String, Long> bytes = traffic.bytes();
        String gpu0Nvme = bytes.keySet().stream().filter(key -> key.startsWith("dgx-a:GPU0<->nvme") && key.endsWith(" BOUNCE")).findFirst().orElseThrow(() -> new AssertionError(bytes.toString()));
        assertEquals(425L, bytes.get(gpu0Nvme));
        assertEquals(425L, bytes.get("BOUNCE"));
        assertEquals(9L, bytes.get("GDS"));
        assertTrue(traffic.notes().isEmpty(), traffic.notes().toString());

        // The GPU0-drive link is decided GDS; the BOUNCE bytes get a BOUNCE label in BOUNCE's colour, not the GDS one
        String svg = SvgRenderer.render(dgx(), bytes);
        assertTrue(svg.contains(" BOUNCE 425 B<"), svg);
        assertTrue(svg.contains("stroke=\"" + RouteColours.colour(Route.BOUNCE) + "\""), svg);
        assertTrue(svg.contains("BOUNCE: 425 B"), svg);
    }

    @Test
    void withoutASwitchTheOnlyOtherPlacedGpuIsThePeerAndUnknownExecutorsAreNoted()
            throws Exception
    {
        Map<String, LinkTraffic.Place> places = Map.of("0", place("pcie-a", "GPU0"), "2", place("pcie-a", "GPU2"));
        LinkTraffic.Attribution traffic = LinkTraffic.attribute(roce(), places, Map.of(
                "0", Map.of("HOST_STAGED", 11L),
                "9", Map.of("RDMA_HOST_STAGED", 3L)));
        assertEquals(11L, traffic.bytes().get(SvgRenderer.linkKey("pcie-a", "GPU2", "GPU0")));
        assertEquals(3L, traffic.bytes().get("RDMA_HOST_STAGED"));
        assertEquals(1, traffic.notes().size());
        assertTrue(traffic.notes().get(0).contains("executor 9"), traffic.notes().toString());
    }
}
