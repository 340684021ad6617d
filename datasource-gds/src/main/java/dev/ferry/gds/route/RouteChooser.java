package dev.ferry.gds.route;

import dev.ferry.gds.GdsConfigKeys;
import dev.ferry.gds.GdsRouteSetting;
import dev.ferry.gds.io.IoRoute;
import dev.ferry.topology.route.FileConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static java.util.Objects.requireNonNull;

/**
 * Chooses the route per file for the scan's {@link FileConsumer}. {@code host}: always HOST.
 * {@code gds}, {@code bounce}: served when the device runtime has a GPU-capable backend ({@code cuda},
 * or {@code simulated}, whose GDS reads are O_DIRECT into simulated device memory), refused with the
 * reason otherwise; for a CPU consumer the reason (and a warning, once per JVM) says it costs two
 * PCIe crossings. {@code auto}: HOST when the runtime has no GPU (the topology policy's file rule
 * answers HOST, "no GPU destination", so it is not consulted per file); else the topology policy's
 * answer for the consumer, the file's placement and the device the task's batch lands on: HOST for
 * a CPU consumer, GDS or BOUNCE for a device consumer. When the placement cannot be judged (the
 * mount table is unreadable, say) auto reads a device consumer's file on BOUNCE, which works on any
 * local file, and a CPU consumer's on HOST, logged and counted as a fallback.
 */
public final class RouteChooser
{
    private static final Logger log = LoggerFactory.getLogger(RouteChooser.class);
    private static final AtomicLong FALLBACKS = new AtomicLong();
    private static final AtomicBoolean WARNED_CPU_DETOUR = new AtomicBoolean();

    private final GdsRouteSetting setting;
    private final FileConsumer consumer;
    private final DeviceProbe device;
    private final FileRouteAdvisor advisor;

    public RouteChooser(GdsRouteSetting setting, FileConsumer consumer, DeviceProbe device, FileRouteAdvisor advisor)
    {
        this.setting = requireNonNull(setting, "setting is null");
        this.consumer = requireNonNull(consumer, "consumer is null");
        this.device = requireNonNull(device, "device is null");
        this.advisor = requireNonNull(advisor, "advisor is null");
    }

    /**
     * The route when it needs no device runtime to decide: {@code host}, and {@code auto} for a CPU
     * consumer (the policy's file rule answers HOST for it on any node: a GPU route only adds PCIe
     * crossings while the decode runs on the host). Readers and the scan's explain then create no
     * device runtime at all. Empty when the device must be asked.
     */
    public static Optional<RouteChoice> withoutDevice(GdsRouteSetting setting, FileConsumer consumer)
    {
        if (setting == GdsRouteSetting.HOST) {
            return Optional.of(new RouteChoice(IoRoute.HOST, GdsConfigKeys.ROUTE.name() + "=host for a " + consumer.describe(), false));
        }
        if (setting == GdsRouteSetting.AUTO && consumer == FileConsumer.CPU) {
            return Optional.of(new RouteChoice(IoRoute.HOST, GdsConfigKeys.ROUTE.name() + "=auto assumed a " + consumer.describe()
                    + ": HOST on any node (a device route would carry the raw bytes up to the GPU and back down), so no device runtime is created", false));
        }
        return Optional.empty();
    }

    /**
     * The route when the task's assigned GPU is not among the runtime's devices ({@code why}): HOST,
     * a fallback, for any setting but a forced device route, which is refused (it cannot be served on
     * the GPU it was asked for).
     */
    public RouteChoice withoutTaskGpu(String file, String why)
    {
        if (setting == GdsRouteSetting.GDS || setting == GdsRouteSetting.BOUNCE) {
            throw new RouteRefusedException(GdsConfigKeys.ROUTE.name() + "=" + setting.name().toLowerCase(Locale.ROOT) + " cannot read " + file + ": " + why);
        }
        FALLBACKS.incrementAndGet();
        return new RouteChoice(IoRoute.HOST, why + ": HOST for a " + consumer.describe(), true);
    }

    /** The route for reading {@code file} into device {@code deviceOrdinal} (ignored on HOST). */
    public RouteChoice choose(String file, int deviceOrdinal)
    {
        switch (setting) {
            case HOST:
                return new RouteChoice(IoRoute.HOST, GdsConfigKeys.ROUTE.name() + "=host for a " + consumer.describe(), false);
            case GDS:
            case BOUNCE: {
                DeviceVerdict verdict = device.probe();
                String name = setting.name().toLowerCase(Locale.ROOT);
                if (!verdict.available()) {
                    throw new RouteRefusedException(GdsConfigKeys.ROUTE.name() + "=" + name + " cannot read " + file + ": the device runtime has no GPU-capable backend ("
                            + verdict.reason() + "); set spark.ferry.device=cuda on a GPU machine or spark.ferry.device=simulated, or use route auto or host");
                }
                IoRoute route = setting == GdsRouteSetting.GDS ? IoRoute.GDS : IoRoute.BOUNCE;
                String reason = GdsConfigKeys.ROUTE.name() + "=" + name + " on " + verdict.reason() + " for a " + consumer.describe();
                if (consumer == FileConsumer.CPU) {
                    String detour = route + " for a CPU consumer costs two PCIe crossings per byte (" + (route == IoRoute.GDS ? "storage" : "host")
                            + " to device, then device to host for the host decode) where HOST costs none";
                    if (WARNED_CPU_DETOUR.compareAndSet(false, true)) {
                        log.warn("gds: {} forces {}: {}; the scan's pcie* metrics count the bytes", GdsConfigKeys.ROUTE.name(), route, detour);
                    }
                    reason += ": " + detour;
                }
                return new RouteChoice(route, reason, false);
            }
            case AUTO: {
                DeviceVerdict verdict = device.probe();
                if (!verdict.available()) {
                    return new RouteChoice(IoRoute.HOST, "no GPU destination (" + verdict.reason() + "): plain host I/O", false);
                }
                try {
                    return advisor.advise(file, deviceOrdinal, consumer);
                }
                catch (RuntimeException e) {
                    FALLBACKS.incrementAndGet();
                    IoRoute fallback = consumer == FileConsumer.CPU ? IoRoute.HOST : IoRoute.BOUNCE;
                    log.warn("{}: cannot judge the file's placement ({}); reading on the {} route for a {}", file, e.toString(), fallback, consumer.describe());
                    return new RouteChoice(fallback, "placement unknown (" + e.getMessage() + "): " + fallback + " works for any local file, for a " + consumer.describe(), true);
                }
            }
        }
        throw new IllegalStateException("Unknown route setting " + setting);
    }

    /** Fallbacks from the policy's route in this JVM. */
    public static long fallbacks()
    {
        return FALLBACKS.get();
    }
}
