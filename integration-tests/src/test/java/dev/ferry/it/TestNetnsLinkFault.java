package dev.ferry.it;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A link taken down mid-shuffle on a two-node network-namespace cluster and brought back: node 1's
 * link goes down ({@code ip link set down}) as the join's reduce stage starts and comes back after
 * 20 seconds. Ferry's TCP transport retries a connect three times with a 3 s timeout here, so the
 * outage outlasts its retries (a 6 s outage did not: the retries rode it out) but not
 * {@code spark.network.timeout} (30 s), so node 1's executor is not declared lost. The reduce tasks'
 * fetches from node 1 fail naming its address and the route, Spark reruns the stage, and the join
 * must return the same row as with Spark's sort shuffle and no fault.
 */
class TestNetnsLinkFault
{
    @RegisterExtension
    static final NetnsClusterExtension CLUSTER = new NetnsClusterExtension(2, "1gbit", "1g");

    @Test
    @Timeout(value = 360, unit = TimeUnit.SECONDS)
    void joinSurvivesALinkTakenDownMidShuffle()
            throws IOException, InterruptedException
    {
        NodeFaults.Outcome outcome = NodeFaults.run(CLUSTER, 2, List.of("--rows", "300000", "--fault", "link-down", "--node", "1", "--seconds", "20"));
        assertTrue(outcome.fetchFailures() > 0, "No fetch failed while node 1's link was down:\n" + outcome.output());
        NodeFaults.assertFetchFailureNames(outcome, NodeFaults.address(CLUSTER, 1), "TCP");
    }
}
