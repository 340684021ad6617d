package dev.ferry.shuffle.transport;

/** Which verbs layer the RDMA routes use ({@code spark.ferry.transport.verbs}). */
public enum VerbsMode
{
    /** DiSNI when libdisni loads; the simulated layer when the device backend is simulated; else no RDMA routes. */
    AUTO,
    /** DiSNI only; failing to load it is an error. */
    DISNI,
    /** The simulated verbs layer (tests and simulated clusters). */
    SIMULATED,
    /** No RDMA routes. */
    OFF,
}
