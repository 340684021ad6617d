package dev.ferry.plugin;

import java.util.concurrent.atomic.AtomicBoolean;

import dev.ferry.common.FerryVersion;
import dev.ferry.conf.ConfigSource;
import dev.ferry.device.DeviceRuntimes;
import org.slf4j.Logger;

/**
 * The one INFO line each JVM prints when Ferry starts in it: version, role, device backend and why.
 * In {@code local} mode the driver and its executor share the JVM, so the first of them prints it.
 */
final class StartLine
{
    private static final AtomicBoolean PRINTED = new AtomicBoolean();

    private StartLine() {}

    static String text(String role, ConfigSource conf)
    {
        return "Ferry " + FerryVersion.version() + " " + role + ": backend=" + DeviceRuntimes.describeChoice(conf);
    }

    static void printOnce(Logger log, String role, ConfigSource conf)
    {
        if (PRINTED.compareAndSet(false, true)) {
            log.info(text(role, conf));
        }
    }
}
