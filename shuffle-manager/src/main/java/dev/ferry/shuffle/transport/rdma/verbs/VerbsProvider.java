package dev.ferry.shuffle.transport.rdma.verbs;

import java.net.InetSocketAddress;

/** A verbs implementation: real (DiSNI) or simulated. */
public interface VerbsProvider
{
    /** {@code disni} or {@code simulated}. */
    String name();

    /**
     * Opens the device {@code deviceName} and listens on {@code listenAddress}, which must be an
     * address of that device (RDMA CM finds the device by address; a wildcard address finds none).
     */
    VerbsDevice openDevice(String deviceName, InetSocketAddress listenAddress, VerbsSettings settings)
            throws VerbsException;
}
