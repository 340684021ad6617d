package dev.ferry.it;

/**
 * Fault test in local-cluster over simulated RDMA: the serving executor's process dies (halts) while serving a READ: its connections drop, Spark loses the executor and its map outputs. The fetch fails, Spark gets a
 * FetchFailedException, reruns the map stage, and the result equals Spark's own shuffle.
 */
class TestTransportFaultsPeerDies
        extends TransportFaultTest
{
    TestTransportFaultsPeerDies()
    {
        super("process_dies");
    }
}
