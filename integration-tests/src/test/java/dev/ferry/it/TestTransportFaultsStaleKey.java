package dev.ferry.it;

/**
 * Fault test in local-cluster over simulated RDMA: the region a READ names is deregistered just before it arrives: the NIC answers REM_ACCESS_ERR. The fetch fails, Spark gets a
 * FetchFailedException, reruns the map stage, and the result equals Spark's own shuffle.
 */
class TestTransportFaultsStaleKey
        extends TransportFaultTest
{
    TestTransportFaultsStaleKey()
    {
        super("stale_key");
    }
}
