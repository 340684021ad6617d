package dev.ferry.transport.verbs;

import java.io.Closeable;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * One opened RDMA device (NIC) of this process: its protection domain, a listener that accepts
 * peers' connections by itself (one-sided READs need no server-side handler), and outgoing
 * connections. Thread-safe.
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
     * Connects to a peer device within {@code deadline}. DiSNI's own connect can wait for ever on
     * ADDR_ERROR, ROUTE_ERROR, REJECTED or UNREACHABLE; every provider here gives up at the
     * deadline, closes what it opened, and says why.
     */
    VerbsConnection connect(InetSocketAddress peer, Duration deadline)
            throws VerbsException;

    /** Closes the listener, every connection and the protection domain. Registrations should be deregistered first. */
    @Override
    void close();
}
