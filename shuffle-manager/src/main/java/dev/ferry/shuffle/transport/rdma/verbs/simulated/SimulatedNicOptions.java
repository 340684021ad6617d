package dev.ferry.shuffle.transport.rdma.verbs.simulated;

import java.nio.file.Path;
import java.util.Optional;

import dev.ferry.conf.ConfigSource;
import dev.ferry.shuffle.transport.InjectedFault;
import dev.ferry.shuffle.transport.TransportConfigKeys;

import static java.util.Objects.requireNonNull;

/**
 * How the simulated NIC behaves where real hardware differs.
 *
 * @param peermemLoaded whether device memory can be registered (as with {@code nvidia_peermem} loaded)
 * @param bar1BytesPerDevice how much device memory may be registered per GPU (BAR1 size)
 * @param iwarp iWARP rules: a READ sink must also be registered REMOTE_WRITE
 * @param cmFault what the listener does with connect requests
 * @param faults the test-only fault the responder injects into a READ ({@link FaultInjector#none()} by default)
 */
public record SimulatedNicOptions(boolean peermemLoaded, long bar1BytesPerDevice, boolean iwarp, CmFault cmFault, FaultInjector faults)
{
    public SimulatedNicOptions
    {
        requireNonNull(cmFault, "cmFault is null");
        requireNonNull(faults, "faults is null");
        if (bar1BytesPerDevice < 0) {
            throw new IllegalArgumentException("BAR1 budget must not be negative: " + bar1BytesPerDevice);
        }
    }

    public SimulatedNicOptions(boolean peermemLoaded, long bar1BytesPerDevice, boolean iwarp, CmFault cmFault)
    {
        this(peermemLoaded, bar1BytesPerDevice, iwarp, cmFault, FaultInjector.none());
    }

    /** From Spark's configuration; the test-only fault keys ({@code spark.ferry.transport.test.faultInjection*}) are off unless set. */
    public static SimulatedNicOptions from(ConfigSource config)
    {
        InjectedFault fault = TransportConfigKeys.TEST_FAULT_INJECTION.get(config);
        String onceFile = TransportConfigKeys.TEST_FAULT_ONCE_FILE.get(config);
        FaultInjector faults = new FaultInjector(fault, onceFile.isBlank() ? Optional.empty() : Optional.of(Path.of(onceFile)));
        return new SimulatedNicOptions(TransportConfigKeys.SIMULATED_PEERMEM.get(config), TransportConfigKeys.SIMULATED_BAR1_BYTES.get(config), false, CmFault.NONE, faults);
    }

    /** Test hook: the responder spoils one READ with {@code fault} (once per set of options). */
    public SimulatedNicOptions withFault(InjectedFault fault)
    {
        return new SimulatedNicOptions(peermemLoaded, bar1BytesPerDevice, iwarp, cmFault, new FaultInjector(fault, Optional.empty()));
    }

    public SimulatedNicOptions withCmFault(CmFault fault)
    {
        return new SimulatedNicOptions(peermemLoaded, bar1BytesPerDevice, iwarp, fault, faults);
    }

    public SimulatedNicOptions withPeermem(boolean loaded)
    {
        return new SimulatedNicOptions(loaded, bar1BytesPerDevice, iwarp, cmFault, faults);
    }

    public SimulatedNicOptions withIwarp(boolean enabled)
    {
        return new SimulatedNicOptions(peermemLoaded, bar1BytesPerDevice, enabled, cmFault, faults);
    }

    public SimulatedNicOptions withBar1Bytes(long bytes)
    {
        return new SimulatedNicOptions(peermemLoaded, bytes, iwarp, cmFault, faults);
    }
}
