package dev.ferry.transport.verbs.simulated;

import dev.ferry.conf.ConfigSource;
import dev.ferry.transport.TransportConfigKeys;

import static java.util.Objects.requireNonNull;

/**
 * How the simulated NIC behaves where real hardware differs.
 *
 * @param peermemLoaded whether device memory can be registered (as with {@code nvidia_peermem} loaded)
 * @param bar1BytesPerDevice how much device memory may be registered per GPU (BAR1 size)
 * @param iwarp iWARP rules: a READ sink must also be registered REMOTE_WRITE
 * @param cmFault what the listener does with connect requests
 */
public record SimulatedNicOptions(boolean peermemLoaded, long bar1BytesPerDevice, boolean iwarp, CmFault cmFault)
{
    public SimulatedNicOptions
    {
        requireNonNull(cmFault, "cmFault is null");
        if (bar1BytesPerDevice < 0) {
            throw new IllegalArgumentException("BAR1 budget must not be negative: " + bar1BytesPerDevice);
        }
    }

    public static SimulatedNicOptions from(ConfigSource config)
    {
        return new SimulatedNicOptions(TransportConfigKeys.SIMULATED_PEERMEM.get(config), TransportConfigKeys.SIMULATED_BAR1_BYTES.get(config), false, CmFault.NONE);
    }

    public SimulatedNicOptions withCmFault(CmFault fault)
    {
        return new SimulatedNicOptions(peermemLoaded, bar1BytesPerDevice, iwarp, fault);
    }

    public SimulatedNicOptions withPeermem(boolean loaded)
    {
        return new SimulatedNicOptions(loaded, bar1BytesPerDevice, iwarp, cmFault);
    }

    public SimulatedNicOptions withIwarp(boolean enabled)
    {
        return new SimulatedNicOptions(peermemLoaded, bar1BytesPerDevice, enabled, cmFault);
    }

    public SimulatedNicOptions withBar1Bytes(long bytes)
    {
        return new SimulatedNicOptions(peermemLoaded, bytes, iwarp, cmFault);
    }
}
