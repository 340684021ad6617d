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

import java.util.concurrent.atomic.AtomicLong;

/** Chooses and builds the backend {@code spark.ferry.device} asks for. */
public final class DeviceRuntimes
{
    private static final Logger log = LoggerFactory.getLogger(DeviceRuntimes.class);
    private static final AtomicLong AUTO_FALLBACKS_TO_HOST = new AtomicLong();

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
                    throw new FerryException(ErrorCategory.EXTERNAL, "CUDA unavailable: " + cuda.reason());
                }
                return build(CudaProbe.newBackend(config), config, "spark.ferry.device=cuda: " + cuda.reason());
            }
            case AUTO: {
                CudaAvailability cuda = CudaProbe.availability();
                if (cuda.available()) {
                    return build(CudaProbe.newBackend(config), config, "spark.ferry.device=auto chose cuda: " + cuda.reason());
                }
                AUTO_FALLBACKS_TO_HOST.incrementAndGet();
                log.warn("spark.ferry.device=auto: using the host backend because CUDA unavailable: {}", cuda.reason());
                return build(hostBackend(config), config, "spark.ferry.device=auto fell back to host: CUDA unavailable: " + cuda.reason());
            }
        }
        throw new IllegalStateException("Unhandled device mode " + mode);
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
                    DeviceConfigKeys.RECORD_ALLOCATION_SITES.get(config), reason);
        }
        catch (RuntimeException e) {
            backend.close();
            throw e;
        }
    }
}
