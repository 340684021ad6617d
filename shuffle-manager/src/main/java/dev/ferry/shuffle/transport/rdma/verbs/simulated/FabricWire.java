package dev.ferry.shuffle.transport.rdma.verbs.simulated;

/**
 * The simulated fabric's wire: what two simulated NICs say to each other over a loopback TCP
 * socket. This is the NIC's protocol, not Ferry's: the application never sees these frames.
 * <pre>
 * CM:    requester -> CM_REQUEST(utf requesterName, ubyte length, private data);  responder -> CM_ACCEPT | CM_REJECT(utf reason)
 * READ:  requester -> READ(long wrId, long remoteAddress, int rkey, int length)
 *        responder -> READ_DATA(long wrId, length bytes) | READ_NAK(long wrId, byte status)
 * </pre>
 * The private data (at most 56 bytes, as RDMA CM allows an RC connect) carries the requester's
 * connection token; the responder rejects the request unless its admissions admit it.
 * The responder answers every READ in order, so a requester that stopped caring (error state)
 * still drains one answer per READ it sent.
 */
final class FabricWire
{
    static final int MAGIC = 0x46564253; // "FVBS"
    static final byte CM_REQUEST = 1;
    static final byte CM_ACCEPT = 2;
    static final byte CM_REJECT = 3;
    static final byte READ = 10;
    static final byte READ_DATA = 11;
    static final byte READ_NAK = 12;
    /** The largest single message, as ConnectX HCAs report it ({@code max_msg_sz} 0x40000000). */
    static final int MAX_MESSAGE_BYTES = 1 << 30;

    private FabricWire() {}
}
