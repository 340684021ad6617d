package dev.ferry.shuffle.transport.rdma;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.conf.ConfigSource;
import dev.ferry.shuffle.transport.TransportConfigKeys;
import dev.ferry.shuffle.transport.VerbsMode;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsAvailability;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsProvider;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsSelection;
import dev.ferry.shuffle.transport.rdma.verbs.disni.DisniProbe;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.SimulatedNicOptions;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.SimulatedVerbsProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chooses the verbs layer from {@code spark.ferry.transport.verbs} and the device backend. In
 * {@code auto}, a simulated device backend gets the simulated verbs layer (simulated GPUs cannot
 * be registered with a real NIC), anything else DiSNI when its probe succeeds, else no RDMA
 * routes, with the probe's reason logged and counted.
 */
public final class VerbsProviders
{
    private static final Logger log = LoggerFactory.getLogger(VerbsProviders.class);
    private static final AtomicLong AUTO_WITHOUT_RDMA = new AtomicLong();

    private VerbsProviders() {}

    public static VerbsSelection select(ConfigSource config, String deviceBackend)
    {
        return select(config, deviceBackend, DisniProbe::availability, DisniProbe::newProvider);
    }

    static VerbsSelection select(ConfigSource config, String deviceBackend, Supplier<VerbsAvailability> disniAvailability, Supplier<VerbsProvider> disni)
    {
        VerbsMode mode = TransportConfigKeys.VERBS.get(config);
        switch (mode) {
            case OFF:
                return new VerbsSelection(Optional.empty(), "spark.ferry.transport.verbs=off");
            case SIMULATED:
                return new VerbsSelection(Optional.of(new SimulatedVerbsProvider(SimulatedNicOptions.from(config))), "spark.ferry.transport.verbs=simulated");
            case DISNI: {
                VerbsAvailability availability = disniAvailability.get();
                if (!availability.available()) {
                    throw new FerryException(ErrorCategory.EXTERNAL, "spark.ferry.transport.verbs=disni but " + availability.reason());
                }
                return new VerbsSelection(Optional.of(disni.get()), "spark.ferry.transport.verbs=disni: " + availability.reason());
            }
            case AUTO: {
                if ("simulated".equals(deviceBackend)) {
                    return new VerbsSelection(Optional.of(new SimulatedVerbsProvider(SimulatedNicOptions.from(config))),
                            "spark.ferry.transport.verbs=auto chose simulated: the device backend is simulated");
                }
                VerbsAvailability availability = disniAvailability.get();
                if (availability.available()) {
                    return new VerbsSelection(Optional.of(disni.get()), "spark.ferry.transport.verbs=auto chose disni: " + availability.reason());
                }
                // The expected outcome without an RDMA NIC or libdisni: once per JVM at INFO, the details at DEBUG.
                if (AUTO_WITHOUT_RDMA.getAndIncrement() == 0) {
                    log.info("spark.ferry.transport.verbs=auto: no RDMA routes (no DiSNI verbs layer; details at DEBUG)");
                }
                log.debug("spark.ferry.transport.verbs=auto: no RDMA routes because {}", availability.reason());
                return new VerbsSelection(Optional.empty(), "spark.ferry.transport.verbs=auto found no verbs layer: " + availability.reason());
            }
        }
        throw new IllegalStateException("Unhandled verbs mode " + mode);
    }

    /** How often {@code auto} ended without a verbs layer in this JVM. */
    public static long autoSelectionsWithoutRdma()
    {
        return AUTO_WITHOUT_RDMA.get();
    }
}
