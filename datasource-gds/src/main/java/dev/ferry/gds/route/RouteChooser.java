package dev.ferry.gds.route;

import dev.ferry.gds.GdsConfigKeys;
import dev.ferry.gds.GdsRouteSetting;
import dev.ferry.gds.io.IoRoute;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

import static java.util.Objects.requireNonNull;

/**
 * Chooses the route per file. {@code host}: always HOST. {@code gds}, {@code bounce}: served when
 * the device runtime has a GPU-capable backend ({@code cuda}, or {@code simulated}, whose GDS reads
 * are O_DIRECT into simulated device memory), refused with the reason otherwise. {@code auto}: HOST
 * when the runtime has no GPU (the topology policy's file rule answers HOST, "no GPU destination",
 * so it is not consulted per file); else the topology policy's answer for the file's placement and
 * the device the task's batch lands on. When the placement cannot be judged (the mount table is
 * unreadable, say) auto reads on BOUNCE, which works on any local file, logged and counted as a
 * fallback.
 */
public final class RouteChooser
{
    private static final Logger log = LoggerFactory.getLogger(RouteChooser.class);
    private static final AtomicLong FALLBACKS = new AtomicLong();

    private final GdsRouteSetting setting;
    private final DeviceProbe device;
    private final FileRouteAdvisor advisor;

    public RouteChooser(GdsRouteSetting setting, DeviceProbe device, FileRouteAdvisor advisor)
    {
        this.setting = requireNonNull(setting, "setting is null");
        this.device = requireNonNull(device, "device is null");
        this.advisor = requireNonNull(advisor, "advisor is null");
    }

    /** The route for reading {@code file} into device {@code deviceOrdinal} (ignored on HOST). */
    public RouteChoice choose(String file, int deviceOrdinal)
    {
        switch (setting) {
            case HOST:
                return new RouteChoice(IoRoute.HOST, GdsConfigKeys.ROUTE.name() + "=host", false);
            case GDS:
            case BOUNCE: {
                DeviceVerdict verdict = device.probe();
                String name = setting.name().toLowerCase(Locale.ROOT);
                if (!verdict.available()) {
                    throw new RouteRefusedException(GdsConfigKeys.ROUTE.name() + "=" + name + " cannot read " + file + ": the device runtime has no GPU-capable backend ("
                            + verdict.reason() + "); set spark.ferry.device=cuda on a GPU machine or spark.ferry.device=simulated, or use route auto or host");
                }
                return new RouteChoice(setting == GdsRouteSetting.GDS ? IoRoute.GDS : IoRoute.BOUNCE, GdsConfigKeys.ROUTE.name() + "=" + name + " on " + verdict.reason(), false);
            }
            case AUTO: {
                DeviceVerdict verdict = device.probe();
                if (!verdict.available()) {
                    return new RouteChoice(IoRoute.HOST, "no GPU destination (" + verdict.reason() + "): plain host I/O", false);
                }
                try {
                    return advisor.advise(file, deviceOrdinal);
                }
                catch (RuntimeException e) {
                    FALLBACKS.incrementAndGet();
                    log.warn("{}: cannot judge the file's placement for GDS ({}); reading on the BOUNCE route", file, e.toString());
                    return new RouteChoice(IoRoute.BOUNCE, "placement unknown (" + e.getMessage() + "): BOUNCE works for any local file", true);
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
