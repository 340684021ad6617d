package dev.ferry.shuffle.transport.rdma.verbs.simulated;

/** A connection-manager failure the simulated listener injects, for deadline and error tests. */
public enum CmFault
{
    NONE,
    /** Never answer the connect request, as DiSNI never wakes up on ADDR_ERROR or ROUTE_ERROR: only the requester's deadline ends the wait. */
    DROP,
    /** Answer with a reject (RDMA_CM_EVENT_REJECTED). */
    REJECT,
}
