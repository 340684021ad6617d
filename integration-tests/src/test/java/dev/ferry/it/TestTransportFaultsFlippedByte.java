package dev.ferry.it;

/**
 * Fault test in local-cluster over simulated RDMA: one byte of a READ flipped in flight: the reader's block checksum refuses the block. The fetch fails, Spark gets a
 * FetchFailedException, reruns the map stage, and the result equals Spark's own shuffle.
 */
class TestTransportFaultsFlippedByte
        extends TransportFaultTest
{
    TestTransportFaultsFlippedByte()
    {
        super("flip_byte");
    }
}
