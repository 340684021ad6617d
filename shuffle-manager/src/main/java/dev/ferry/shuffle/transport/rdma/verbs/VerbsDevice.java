package dev.ferry.shuffle.transport.rdma.verbs;

import java.io.Closeable;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * One opened RDMA device (NIC) of this process: its protection domain, a listener that accepts
 * peers' connections by itself (one-sided READs need no server-side handler) but only those its
 * {@link #admissions()} admit, and outgoing connections. Thread-safe.
 */
public interface VerbsDevice
        extends Closeable
{
    /** The device name, e.g. {@code mlx5_0}. */
    String name();

    /** Where peers connect to read this device's registered memory. */
    InetSocketAddress listenAddress();

    ProtectionDomain protectionDomain();

    /**
     * Which incoming queue pairs the listener accepts: a connect request must carry a token issued
     * here (over the reader's authenticated TCP session), unused and unexpired, or it is refused
     * before a queue pair is created.
     */
    ConnectionAdmissions admissions();

    /**
     * Connects to a peer device within {@code deadline}. DiSNI's own connect can wait for ever on
     * ADDR_ERROR, ROUTE_ERROR, REJECTED or UNREACHABLE; every provider here gives up at the
     * deadline, closes what it opened, and says why. The connect request carries {@code token} (the
     * peer device's admission, issued to this reader over the peer's authenticated TCP channel) as its
     * private data; without a valid one the peer rejects it.
     */
    VerbsConnection connect(InetSocketAddress peer, Duration deadline, ConnectionToken token)
            throws VerbsException;

    /**
     * Queue pairs open on this device: outgoing connections not yet closed plus accepted ones whose
     * peer has not disconnected (a departed peer's are closed and no longer counted). For leak checks.
     */
    int openEndpoints();

    /** Closes the listener, every connection and the protection domain. Registrations should be deregistered first. */
    @Override
    void close();
}
