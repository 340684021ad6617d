package dev.ferry.it;

/**
 * Fault test in local-cluster over simulated RDMA: a READ's data stops halfway and the queue pair goes dark. The fetch fails, Spark gets a
 * FetchFailedException, reruns the map stage, and the result equals Spark's own shuffle.
 */
class TestTransportFaultsCutShort
        extends TransportFaultTest
{
    TestTransportFaultsCutShort()
    {
        super("cut_short");
    }
}
