package dev.ferry.device.cuda;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.conf.ConfigSource;
import dev.ferry.device.spi.DeviceBackend;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.InvocationTargetException;
import java.util.function.Supplier;

/**
 * Probes CUDA once per JVM and caches the verdict with its reason. This class names no JavaCPP
 * class: the native probe and the backend are reached by reflection, only after the probe
 * succeeded, because the first touch of {@code org.bytedeco.cuda.global.cudart} on a machine
 * without the driver throws {@link UnsatisfiedLinkError} and every later touch
 * {@link NoClassDefFoundError}.
 */
public final class CudaProbe
{
    private static final Logger log = LoggerFactory.getLogger(CudaProbe.class);
    private static final String NATIVE_PROBE = "dev.ferry.device.cuda.CudaNativeProbe";
    private static final String BACKEND = "dev.ferry.device.cuda.CudaBackend";
    private static volatile CudaAvailability cached;

    private CudaProbe() {}

    public static CudaAvailability availability()
    {
        CudaAvailability result = cached;
        if (result == null) {
            synchronized (CudaProbe.class) {
                result = cached;
                if (result == null) {
                    result = probe();
                    cached = result;
                    // Without CUDA this is the expected outcome on most machines: the backend choice says it once at INFO.
                    if (result.available()) {
                        log.info("CUDA probe: {}", result);
                    }
                    else {
                        log.debug("CUDA probe: {}", result);
                    }
                }
            }
        }
        return result;
    }

    @SuppressWarnings("unchecked")
    private static CudaAvailability probe()
    {
        try {
            Supplier<CudaAvailability> nativeProbe = (Supplier<CudaAvailability>) Class.forName(NATIVE_PROBE).getDeclaredConstructor().newInstance();
            return nativeProbe.get();
        }
        catch (VirtualMachineError e) {
            throw e;
        }
        catch (Throwable e) {
            // The one place Ferry catches Throwable: a failed native load means "unavailable", not a crash.
            return CudaAvailability.unavailable(describe(e));
        }
    }

    /** The CUDA backend; only call after {@link #availability()} said available. */
    public static DeviceBackend newBackend(ConfigSource config)
    {
        CudaAvailability availability = availability();
        if (!availability.available()) {
            throw new FerryException(ErrorCategory.EXTERNAL, "CUDA unavailable: " + availability.reason());
        }
        try {
            return (DeviceBackend) Class.forName(BACKEND).getConstructor(ConfigSource.class).newInstance(config);
        }
        catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException) {
                throw (RuntimeException) e.getCause();
            }
            throw new FerryException(ErrorCategory.EXTERNAL, "CUDA backend failed to start: " + describe(e.getCause()), e.getCause());
        }
        catch (ReflectiveOperationException | LinkageError e) {
            throw new FerryException(ErrorCategory.EXTERNAL, "CUDA backend failed to load: " + describe(e), e);
        }
    }

    private static String describe(Throwable e)
    {
        Throwable root = e;
        while ((root instanceof InvocationTargetException || root instanceof ExceptionInInitializerError) && root.getCause() != null) {
            root = root.getCause();
        }
        StringBuilder text = new StringBuilder(root.getClass().getSimpleName()).append(": ").append(root.getMessage());
        // JavaCPP wraps the loader's real complaint (e.g. "libcuda.so.1: cannot open shared object file") as a cause.
        for (Throwable cause = root.getCause(); cause != null && cause != cause.getCause(); cause = cause.getCause()) {
            text.append(" <- ").append(cause.getClass().getSimpleName()).append(": ").append(cause.getMessage());
        }
        return text.toString();
    }
}
