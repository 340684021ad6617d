package dev.ferry.shuffle.transport;

/**
 * A fault the simulated NIC's responder injects into one READ it serves. Test-only: set through
 * {@link SimulatedNicOptions#withFault} or {@code spark.ferry.transport.test.faultInjection}, never
 * active by default. Each stands for something a real fabric or peer does to a one-sided READ.
 */
public enum InjectedFault
{
    NONE,
    /** One byte of the READ's data is flipped on the wire (a corruption that slipped past the link CRC). */
    FLIP_BYTE,
    /** Half of the READ's data is sent, then the queue pair goes dark: the requester sees the transfer end early. */
    CUT_SHORT,
    /** The region the READ names is deregistered just before it arrives: its rkey is stale. */
    STALE_KEY,
    /** The peer's NIC dies mid-transfer: every queue pair and the listener close at once. */
    PEER_DIES,
    /** The peer's whole process dies mid-transfer ({@code Runtime.halt}); for multi-process tests only. */
    PROCESS_DIES,
}
