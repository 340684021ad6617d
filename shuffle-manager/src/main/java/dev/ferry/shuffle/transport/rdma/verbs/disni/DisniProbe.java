package dev.ferry.shuffle.transport.rdma.verbs.disni;

import java.lang.reflect.InvocationTargetException;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsAvailability;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides once per JVM whether DiSNI can be used, and keeps the verdict with its reason.
 *
 * <p>This class names no DiSNI class, and neither does anything it links against: the first
 * touch of DiSNI's native dispatcher without {@code libdisni} throws {@code UnsatisfiedLinkError},
 * every later one {@code NoClassDefFoundError}, so {@link DisniNativeProbe} and
 * {@link DisniVerbsProvider} are reached by reflection only, and the provider only after the probe
 * succeeded. A failure is cached as "DiSNI unavailable: reason", logged once and counted.
 */
public final class DisniProbe
{
    private static final Logger log = LoggerFactory.getLogger(DisniProbe.class);
    private static final String NATIVE_PROBE = "dev.ferry.shuffle.transport.rdma.verbs.disni.DisniNativeProbe";
    private static final String PROVIDER = "dev.ferry.shuffle.transport.rdma.verbs.disni.DisniVerbsProvider";

    private static volatile VerbsAvailability verdict;

    private DisniProbe() {}

    public static VerbsAvailability availability()
    {
        VerbsAvailability result = verdict;
        if (result == null) {
            synchronized (DisniProbe.class) {
                result = verdict;
                if (result == null) {
                    result = probe();
                    verdict = result;
                    if (result.available()) {
                        log.info("DiSNI available: {}", result.reason());
                    }
                    else {
                        // Expected on machines without RDMA: the verbs selection says it once (INFO for auto, an error for disni).
                        log.debug("{}; RDMA routes through DiSNI are disabled", result.reason());
                    }
                }
            }
        }
        return result;
    }

    /** The DiSNI provider; fails with the probe's reason when DiSNI cannot be used. */
    public static VerbsProvider newProvider()
    {
        VerbsAvailability availability = availability();
        if (!availability.available()) {
            throw new FerryException(ErrorCategory.EXTERNAL, availability.reason());
        }
        try {
            return (VerbsProvider) Class.forName(PROVIDER, true, DisniProbe.class.getClassLoader()).getConstructor().newInstance();
        }
        catch (ReflectiveOperationException | LinkageError e) {
            throw new FerryException(ErrorCategory.EXTERNAL, "DiSNI unavailable: " + describe(unwrap(e)), e);
        }
    }

    private static VerbsAvailability probe()
    {
        try {
            Object detail = Class.forName(NATIVE_PROBE, true, DisniProbe.class.getClassLoader()).getMethod("probe").invoke(null);
            return new VerbsAvailability(true, String.valueOf(detail));
        }
        catch (InvocationTargetException e) {
            return new VerbsAvailability(false, "DiSNI unavailable: " + describe(unwrap(e)));
        }
        catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
            return new VerbsAvailability(false, "DiSNI unavailable: " + describe(e));
        }
    }

    private static Throwable unwrap(Throwable throwable)
    {
        Throwable current = throwable;
        while (current instanceof InvocationTargetException && current.getCause() != null) {
            current = current.getCause();
        }
        return current;
    }

    /** "UnsatisfiedLinkError: no disni in java.library.path ... <- cause", one line. */
    static String describe(Throwable throwable)
    {
        StringBuilder text = new StringBuilder();
        Throwable current = throwable;
        int depth = 0;
        while (current != null && depth < 4) {
            if (depth > 0) {
                text.append(" <- ");
            }
            text.append(current.getClass().getSimpleName()).append(": ").append(current.getMessage());
            current = current.getCause() == current ? null : current.getCause();
            depth++;
        }
        return text.toString();
    }
}
