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
 * node a Worker with one executor), each during the join's reduce stage, each compared with Spark's sort
 * shuffle on the same data without a fault. One cluster for both: the partition is healed before the
 * kill, which is last because it is not undone.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TestNetnsNodeFaults
{
    @RegisterExtension
    static final NetnsClusterExtension CLUSTER = new NetnsClusterExtension(3, "1gbit", "1g");

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
