package dev.ferry.examples.bench.cluster;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TestWireCounters
{
    private static final String NODE_0 = "node=0 tx_bytes=1000 tx_packets=10 rx_bytes=500 rx_packets=5 qdisc_sent_bytes=1000 qdisc_dropped=1 qdisc_overlimits=3";
    private static final String NODE_1 = "node=1 tx_bytes=2500 tx_packets=20 rx_bytes=1000 rx_packets=10 qdisc_sent_bytes=2500 qdisc_dropped=2 qdisc_overlimits=0";

    @Test
    void sumsWhatEveryNodeSent()
    {
        WireCounters.Reading reading = WireCounters.parse(NODE_0 + "\n" + NODE_1 + "\n", 2);
        assertEquals(3500, reading.bytesSent());
        assertEquals(3, reading.shaperDrops());
        WireCounters.Reading later = WireCounters.parse(NODE_0.replace("tx_bytes=1000", "tx_bytes=1600") + "\n" + NODE_1, 2);
        assertEquals(new WireCounters.Reading(600, 0), later.minus(reading));
    }

    @Test
    void refusesAMissingNodeADuplicateAndAnUnknownLine()
    {
        assertTrue(assertThrows(IllegalStateException.class, () -> WireCounters.parse(NODE_0, 2)).getMessage().contains("did not list node 1"));
        assertTrue(assertThrows(IllegalStateException.class, () -> WireCounters.parse(NODE_0 + "\n" + NODE_0, 2)).getMessage().contains("out of place"));
        assertTrue(assertThrows(IllegalStateException.class, () -> WireCounters.parse(NODE_0 + "\nnetns-cluster: no run 3", 2)).getMessage().contains("Unexpected line"));
    }
}
