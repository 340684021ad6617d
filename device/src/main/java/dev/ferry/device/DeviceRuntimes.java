package dev.ferry.device;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.conf.ConfigSource;
import dev.ferry.device.cuda.CudaAvailability;
import dev.ferry.device.cuda.CudaProbe;
import dev.ferry.device.host.HostBackend;
import dev.ferry.device.simulated.SimulatedBackend;
import dev.ferry.device.spi.DeviceBackend;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.atomic.AtomicLong;

/** Chooses and builds the backend {@code spark.ferry.device} asks for. */
public final class DeviceRuntimes
{
    private static final Logger log = LoggerFactory.getLogger(DeviceRuntimes.class);
    private static final AtomicLong AUTO_FALLBACKS_TO_HOST = new AtomicLong();
    // Guarded by DeviceRuntimes.class.
    private static final Map<String, DeviceRuntime> SHARED = new HashMap<>();

    private DeviceRuntimes() {}

    public static DeviceRuntime create(ConfigSource config)
    {
        DeviceMode mode = DeviceConfigKeys.DEVICE.get(config);
        switch (mode) {
            case SIMULATED:
                return build(new SimulatedBackend(config), config, "spark.ferry.device=simulated");
            case HOST:
                return build(hostBackend(config), config, "spark.ferry.device=host");
            case CUDA: {
                CudaAvailability cuda = CudaProbe.availability();
                if (!cuda.available()) {
                    throw cudaRequiredButMissing(cuda);
                }
                return build(CudaProbe.newBackend(config), config, "spark.ferry.device=cuda: " + cuda.reason());
            }
            case AUTO: {
                CudaAvailability cuda = CudaProbe.availability();
                if (cuda.available()) {
                    return build(CudaProbe.newBackend(config), config, "spark.ferry.device=auto chose cuda: " + cuda.reason());
                }
                // The expected outcome on a machine without a GPU: said once per JVM at INFO, the probe's details at DEBUG.
                if (AUTO_FALLBACKS_TO_HOST.getAndIncrement() == 0) {
                    log.info("spark.ferry.device=auto: host backend ({})", cuda.shortReason());
                }
                log.debug("spark.ferry.device=auto: host backend because CUDA is unavailable: {}", cuda.reason());
                return build(hostBackend(config), config, "spark.ferry.device=auto fell back to host: CUDA unavailable: " + cuda.reason());
            }
        }
        throw new IllegalStateException("Unhandled device mode " + mode);
    }

    /**
     * The backend {@code spark.ferry.device} will give this JVM, and why in a few words, without
     * building it (the start-up line; the probe it needs is cached for the JVM).
     */
    public static String describeChoice(ConfigSource config)
    {
        DeviceMode mode = DeviceConfigKeys.DEVICE.get(config);
        switch (mode) {
            case SIMULATED:
                return "simulated (spark.ferry.device=simulated)";
            case HOST:
                return "host (spark.ferry.device=host)";
            case CUDA:
            case AUTO: {
                CudaAvailability cuda = CudaProbe.availability();
                String setting = "spark.ferry.device=" + mode.name().toLowerCase(java.util.Locale.ROOT);
                return (cuda.available() ? "cuda (" : mode == DeviceMode.CUDA ? "none (" : "host (") + setting + ", " + cuda.shortReason() + ")";
            }
        }
        throw new IllegalStateException("Unhandled device mode " + mode);
    }

    /**
     * {@code spark.ferry.device=cuda} on a JVM without usable CUDA: one behaviour wherever it is
     * found (the executor plugin at start, else the first shuffle or gds read), naming the setting.
     */
    public static FerryException cudaRequiredButMissing(CudaAvailability cuda)
    {
        return new FerryException(ErrorCategory.USER_ERROR, DeviceConfigKeys.DEVICE.name() + "=cuda, but this JVM has no usable CUDA (" + cuda.shortReason()
                + "): " + cuda.reason() + ". Use spark.ferry.device=auto to fall back to the host backend where CUDA is missing.");
    }

    /**
     * The executor's one device runtime for these settings, shared by every user in the JVM (the
     * shuffle's device store and the gds reader), so that one memory limit holds for the GPU and
     * one pool, one set of streams and one cuFile driver serve both. Reference-counted: each call
     * is matched by exactly one {@link DeviceRuntime#close()}, and the last close really closes it
     * (then the next call makes a new one). Runtimes are kept per distinct set of
     * {@code spark.ferry.device.*} values (an executor has one; tests run several), and a second
     * live set is logged, since its runtime has a limit of its own.
     */
    public static synchronized DeviceRuntime shared(ConfigSource config)
    {
        String key = settingsKey(config);
        DeviceRuntime runtime = SHARED.get(key);
        if (runtime != null && runtime.retainShared()) {
            return runtime;
        }
        DeviceRuntime created = create(config);
        created.onLastClose(() -> forget(key, created));
        SHARED.put(key, created);
        if (SHARED.size() > 1) {
            log.warn("{} device runtimes with different spark.ferry.device.* settings are open in this JVM; each has its own memory limit: {}", SHARED.size(), SHARED.keySet());
        }
        return created;
    }

    private static synchronized void forget(String key, DeviceRuntime runtime)
    {
        SHARED.remove(key, runtime);
    }

    /** Shared runtimes open now (tests). */
    public static synchronized int sharedOpen()
    {
        return SHARED.size();
    }

    private static String settingsKey(ConfigSource config)
    {
        StringJoiner key = new StringJoiner(", ");
        for (var setting : new DeviceConfigKeys().keys()) {
            key.add(setting.name() + "=" + setting.get(config));
        }
        return key.toString();
    }

    /** How often {@code auto} fell back to the host backend in this JVM. */
    public static long autoFallbacksToHost()
    {
        return AUTO_FALLBACKS_TO_HOST.get();
    }

    private static HostBackend hostBackend(ConfigSource config)
    {
        long limit = DeviceConfigKeys.MEMORY_LIMIT.get(config);
        // Host "device" memory is direct memory, whose default ceiling is the heap size.
        return new HostBackend(limit > 0 ? limit : Runtime.getRuntime().maxMemory());
    }

    private static DeviceRuntime build(DeviceBackend backend, ConfigSource config, String reason)
    {
        try {
            return new DeviceRuntime(backend, DeviceConfigKeys.MEMORY_LIMIT.get(config), DeviceConfigKeys.PINNED_LIMIT.get(config),
                    DeviceConfigKeys.RECORD_ALLOCATION_SITES.get(config), reason,
                    DeviceConfigKeys.STREAMS_IDLE_PER_DEVICE.get(config), DeviceConfigKeys.STAGING_CHUNK.get(config));
        }
        catch (RuntimeException e) {
            backend.close();
            throw e;
        }
    }
}
