package dev.ferry.shuffle.transport.rdma.verbs.disni;

import java.net.InetSocketAddress;

import dev.ferry.shuffle.transport.rdma.verbs.VerbsDevice;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsException;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsProvider;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsSettings;

/**
 * Real verbs through DiSNI. Created only by {@link DisniProbe#newProvider()} after the probe
 * succeeded; constructing it otherwise would let an {@code UnsatisfiedLinkError} escape.
 */
public final class DisniVerbsProvider
        implements VerbsProvider
{
    public static final String NAME = "disni";

    public DisniVerbsProvider() {}

    @Override
    public String name()
    {
        return NAME;
    }

    @Override
    public VerbsDevice openDevice(String deviceName, InetSocketAddress listenAddress, VerbsSettings settings)
            throws VerbsException
    {
        return new DisniDevice(deviceName, listenAddress, settings);
    }
}
