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
 * Chooses the route per file. HOST is always possible. The GDS and BOUNCE data sources (cuFile into
 * device buffers, pinned bounce buffers) are not part of this build yet, so a forced {@code gds} or
 * {@code bounce} is refused with the reason, and {@code auto} on a machine with a GPU reads on the
 * host, logged and counted as a fallback. Without a GPU the topology policy's file rule answers HOST
 * ("no GPU destination"), so it is not consulted per file.
 */
public final class RouteChooser
{
    private static final Logger log = LoggerFactory.getLogger(RouteChooser.class);
    private static final AtomicLong FALLBACKS = new AtomicLong();
    static final String DEVICE_ROUTES_MISSING = "reads into device memory (GDS, BOUNCE) are not wired into the gds reader in this build";

    private final GdsRouteSetting setting;
    private final DeviceProbe device;

    public RouteChooser(GdsRouteSetting setting, DeviceProbe device)
    {
        this.setting = requireNonNull(setting, "setting is null");
        this.device = requireNonNull(device, "device is null");
    }

    public RouteChoice choose(String file)
    {
        switch (setting) {
            case HOST:
                return new RouteChoice(IoRoute.HOST, GdsConfigKeys.ROUTE.name() + "=host", false);
            case GDS:
            case BOUNCE:
                throw refuse(file);
            case AUTO:
                DeviceVerdict verdict = device.probe();
                if (!verdict.available()) {
                    return new RouteChoice(IoRoute.HOST, "no GPU destination (" + verdict.reason() + "): plain host I/O", false);
                }
                FALLBACKS.incrementAndGet();
                log.warn("{}: a GPU is available ({}) but {}; reading on the HOST route", file, verdict.reason(), DEVICE_ROUTES_MISSING);
                return new RouteChoice(IoRoute.HOST, "GPU available but " + DEVICE_ROUTES_MISSING, true);
        }
        throw new IllegalStateException("Unknown route setting " + setting);
    }

    /** Fallbacks from a preferred device route to HOST in this JVM. */
    public static long fallbacks()
    {
        return FALLBACKS.get();
    }

    private RouteRefusedException refuse(String file)
    {
        DeviceVerdict verdict = device.probe();
        String name = setting.name().toLowerCase(Locale.ROOT);
        if (!verdict.available()) {
            return new RouteRefusedException(GdsConfigKeys.ROUTE.name() + "=" + name + " cannot read " + file + ": device runtime not available ("
                    + verdict.reason() + ")");
        }
        return new RouteRefusedException(GdsConfigKeys.ROUTE.name() + "=" + name + " cannot read " + file + ": " + DEVICE_ROUTES_MISSING);
    }
}
