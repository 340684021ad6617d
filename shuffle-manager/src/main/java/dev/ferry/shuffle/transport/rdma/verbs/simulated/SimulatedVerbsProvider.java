package dev.ferry.shuffle.transport.rdma.verbs.simulated;

import java.net.InetAddress;
import java.net.InetSocketAddress;

import dev.ferry.shuffle.transport.rdma.verbs.VerbsException;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsProvider;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsSettings;

import static java.util.Objects.requireNonNull;

/**
 * The simulated verbs layer. Each device listens on a loopback TCP port that stands for its NIC;
 * peers in other JVMs connect there and their READs are served from the device's region table.
 */
public final class SimulatedVerbsProvider
        implements VerbsProvider
{
    public static final String NAME = "simulated";

    private final SimulatedNicOptions options;

    public SimulatedVerbsProvider(SimulatedNicOptions options)
    {
        this.options = requireNonNull(options, "options is null");
    }

    @Override
    public String name()
    {
        return NAME;
    }

    @Override
    public SimulatedDevice openDevice(String deviceName, InetSocketAddress listenAddress, VerbsSettings settings)
            throws VerbsException
    {
        return new SimulatedDevice(deviceName, listenAddress, settings, options);
    }

    /** Opens a device on a free loopback port. */
    public SimulatedDevice openLoopbackDevice(String deviceName, VerbsSettings settings)
            throws VerbsException
    {
        return openDevice(deviceName, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), settings);
    }
}
