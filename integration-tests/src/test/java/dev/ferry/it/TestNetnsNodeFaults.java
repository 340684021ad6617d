package dev.ferry.it;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Node faults on a three-node network-namespace cluster (node 0 holds the Master and the driver; every
 * node a Worker with one executor): packet loss for a whole run, a partition and a kill during the join's
 * reduce stage, each compared with Spark's sort
 * shuffle on the same data without a fault. One cluster for all three: the loss is taken off after its
 * run and the partition healed before the kill, which is last because it is not undone.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TestNetnsNodeFaults
{
    @RegisterExtension
    static final NetnsClusterExtension CLUSTER = new NetnsClusterExtension(3, "1gbit", "1g");

    /**
     * 1% packet loss on every node's link for the whole Ferry run (nftables drops each node's outgoing
     * packets at random; GSO off there, so a drop is one wire packet): TCP retransmits, the join is slower
     * but must return the reference's row with no fetch failure, no stage retry and no executor lost,
     * and the nodes that send map outputs must really have dropped packets.
     */
    @Test
    @Order(0)
    @Timeout(value = 360, unit = TimeUnit.SECONDS)
    void joinGivesSparksRowUnderOnePercentPacketLossOnEveryLink()
            throws IOException, InterruptedException
    {
        org.junit.jupiter.api.Assumptions.assumeTrue(NodeFaults.nftablesInstalled(), "packet loss needs nftables' nft (Debian's nftables; .ci/run installs it)");
        NodeFaults.Outcome outcome = NodeFaults.run(CLUSTER, 3, List.of("--rows", "300000", "--fault", "loss", "--percent", "1%"));
        for (int node = 0; node < 3; node++) {
            java.util.regex.Matcher dropped = java.util.regex.Pattern.compile("node " + node + " loss off: dropped (\\d+) packets").matcher(outcome.output());
            assertTrue(dropped.find(), "No drop count for node " + node + ":\n" + outcome.output());
            System.out.println("1% loss: node " + node + " dropped " + dropped.group(1) + " packets");
            if (node > 0) {
                assertTrue(Long.parseLong(dropped.group(1)) > 0, "Node " + node + " sent map outputs but dropped no packet at 1% loss:\n" + outcome.output());
            }
        }
        assertTrue(outcome.fetchFailures() == 0 && outcome.executorsRemoved() == 0, "1% loss is TCP's to hide: no fetch may fail and no executor be lost:\n" + outcome.output());
    }

    /**
     * Nodes 1 and 2 cut from each other for 10 s (each still reaches node 0 and the driver): their
     * fetches from each other fail at once (a blackhole route), Ferry's connect retries (0.5 + 1 + 2 s
     * here) give up, the tasks fail their fetches naming the peer and the route, Spark reruns the lost
     * map outputs, and after the heal the join returns the reference's row. Neither executor is declared
     * lost: both still talk to the driver. A connect that fails at once makes each stage attempt short,
     * so the stage gets 8 attempts here instead of Spark's 4 (with the defaults' 1.4 s of retries a
     * 15 s partition took all 4 and aborted the job, naming the peer and route: a clean failure, but
     * not the recovery this test is about).
     */
    @Test
    @Order(1)
    @Timeout(value = 360, unit = TimeUnit.SECONDS)
    void joinSurvivesTwoNodesCutFromEachOther()
            throws IOException, InterruptedException
    {
        NodeFaults.Outcome outcome = NodeFaults.run(CLUSTER, 3, List.of("spark.ferry.transport.connect.retryWaitMillis=500", "spark.stage.maxConsecutiveAttempts=8"),
                List.of("--rows", "300000", "--fault", "partition", "--node", "1", "--peer", "2", "--seconds", "10"));
        assertTrue(outcome.fetchFailures() > 0, "No fetch failed while nodes 1 and 2 were cut from each other:\n" + outcome.output());
        String one = NodeFaults.address(CLUSTER, 1);
        String two = NodeFaults.address(CLUSTER, 2);
        boolean fromOne = outcome.output().contains("node-fault fetch failure from " + one + ": ");
        assertTrue(fromOne || outcome.output().contains("node-fault fetch failure from " + two + ": "), "No fetch failure named node 1 or node 2:\n" + outcome.output());
        NodeFaults.assertFetchFailureNames(outcome, fromOne ? one : two, "TCP");
        assertTrue(outcome.executorsRemoved() == 0, "A partition between two nodes must not lose an executor (both reach the driver):\n" + outcome.output());
    }

    /**
     * Node 2's Worker and executor killed with SIGKILL as the reduce stage starts: its map outputs are gone
     * with it. Spark sees the executor lost (its connection to the driver drops) and reducers' fetches from
     * it fail; either way the lost map outputs are recomputed on nodes 0 and 1 and the join returns the
     * reference's row within the submit's bound.
     */
    @Test
    @Order(2)
    @Timeout(value = 360, unit = TimeUnit.SECONDS)
    void joinSurvivesAWorkerKilledDuringTheReduceStage()
            throws IOException, InterruptedException
    {
        NodeFaults.Outcome outcome = NodeFaults.run(CLUSTER, 3, List.of("--rows", "300000", "--fault", "kill", "--node", "2"));
        String two = NodeFaults.address(CLUSTER, 2);
        // Spark's own line names the lost peer ("worker lost: <address>:<port> got disassociated", or the executor's loss).
        assertTrue(outcome.executorsRemoved() > 0 && outcome.output().lines().anyMatch(line -> line.startsWith("node-fault executor ") && line.contains(two)),
                "Spark did not report node 2's executor lost, naming " + two + ":\n" + outcome.output());
        // A reducer that tried node 2 before Spark knew it was gone fails that fetch naming node 2 and the route; one that
        // asked after finds no location (MetadataFetchFailedException: Spark already knew).
        if (outcome.output().contains("node-fault fetch failure from " + two + ": ")) {
            NodeFaults.assertFetchFailureNames(outcome, two, "TCP");
        }
    }
}
