package dev.ferry.shuffle;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

import dev.ferry.shuffle.format.ChecksumAlgorithm;
import dev.ferry.shuffle.format.CompressionKind;
import dev.ferry.shuffle.format.EncodingSettings;
import dev.ferry.shuffle.placement.ExecutorPlace;
import dev.ferry.shuffle.placement.ExecutorTopology;
import dev.ferry.topology.model.ClusterTopology;
import dev.ferry.topology.model.LinkLayer;
import dev.ferry.topology.model.NetInterface;
import dev.ferry.topology.model.Nic;
import dev.ferry.topology.model.NicPort;
import dev.ferry.topology.model.NodeTopology;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What codec 'auto' becomes for a map task, from its node's link per core, against the measured break-even (0.43 Gbit/s a core). */
class TestCodecForLink
{
    private static NodeTopology ethernetNode(String host, long mbps)
    {
        return NodeTopology.builder(host).netInterface(new NetInterface("eth0", NetInterface.Kind.ETHERNET, mbps, Optional.empty(), true)).build();
    }

    private static Optional<ExecutorTopology.Known> on(String host, NodeTopology... nodes)
    {
        return Optional.of(new ExecutorTopology.Known(new ClusterTopology("test", List.of(nodes)), new ExecutorPlace(host, Optional.empty())));
    }

    @Test
    void withoutAClusterMapTheLinkIsUnknownAndZstdSendsFewerBytes()
    {
        CodecForLink.Decision decision = CodecForLink.choose(Optional.empty(), 4);
        assertEquals(CompressionKind.ZSTD, decision.codec());
        assertTrue(decision.reason().contains("no cluster map"), decision.reason());
    }

    @Test
    void onOneNodeNoBlockCrossesALinkSoLz4SavesCpu()
    {
        CodecForLink.Decision decision = CodecForLink.choose(on("a", ethernetNode("a", 100)), 16);
        assertEquals(CompressionKind.LZ4, decision.codec(), "even a slow NIC does not matter when every peer is on the node");
        assertTrue(decision.reason().contains("every executor is on node a"), decision.reason());
    }

    @Test
    void aCoresShareOfTheLinkBelowTheBreakEvenGetsZstd()
    {
        // 1 Gbit/s over 4 cores = 0.25 Gbit/s a core.
        CodecForLink.Decision slow = CodecForLink.choose(on("a", ethernetNode("a", 1000), ethernetNode("b", 1000)), 4);
        assertEquals(CompressionKind.ZSTD, slow.codec());
        assertTrue(slow.reason().contains("node a's link 1 Gbit/s over 4 cores = 0.25 Gbit/s a core, below"), slow.reason());
        // 1 Gbit/s over 2 cores = 0.5: above.
        assertEquals(CompressionKind.LZ4, CodecForLink.choose(on("a", ethernetNode("a", 1000), ethernetNode("b", 1000)), 2).codec());
        // 500 Mbit/s over 2 cores = 0.25: below.
        assertEquals(CompressionKind.ZSTD, CodecForLink.choose(on("b", ethernetNode("a", 10_000), ethernetNode("b", 500)), 2).codec(), "the map task's own node's link counts");
    }

    @Test
    void anRdmaNicsActivePortCountsAsTheNodesLink()
    {
        Nic nic = new Nic("mlx5_0", Optional.empty(), LinkLayer.INFINIBAND, List.of(new NicPort(1, "ACTIVE", true, 400)), OptionalInt.empty(), List.of("ib0"));
        NodeTopology a = NodeTopology.builder("a").nic(nic).netInterface(new NetInterface("eth0", NetInterface.Kind.ETHERNET, 1000, Optional.empty(), true)).build();
        CodecForLink.Decision decision = CodecForLink.choose(on("a", a, ethernetNode("b", 1000)), 64);
        assertEquals(CompressionKind.LZ4, decision.codec(), "400 Gbit/s over 64 cores is 6.25 a core");
        assertTrue(decision.reason().contains("400 Gbit/s over 64 cores = 6.25"), decision.reason());
    }

    @Test
    void anUnknownOrDownLinkIsUnknownAndGetsZstd()
    {
        NodeTopology down = NodeTopology.builder("a").netInterface(new NetInterface("eth0", NetInterface.Kind.ETHERNET, 100_000, Optional.empty(), false)).build();
        CodecForLink.Decision decision = CodecForLink.choose(on("a", down, ethernetNode("b", 1000)), 1);
        assertEquals(CompressionKind.ZSTD, decision.codec());
        assertTrue(decision.reason().contains("link speed is unknown"), decision.reason());
    }

    @Test
    void autoIsResolvedBeforeWritingAndNeverWritten()
    {
        EncodingSettings auto = new EncodingSettings(CompressionKind.AUTO, 1, 512, 1 << 20, 16 << 20, ChecksumAlgorithm.CRC32C);
        assertEquals(CompressionKind.LZ4, auto.withCompression(CompressionKind.LZ4).compression());
        EncodingSettings zstd = auto.withCompression(CompressionKind.ZSTD);
        assertSame(zstd, zstd.withCompression(CompressionKind.ZSTD));
        assertThrows(IllegalArgumentException.class, () -> dev.ferry.shuffle.format.BufferCodecs.forWriting(CompressionKind.AUTO, 512, 1));
    }
}
