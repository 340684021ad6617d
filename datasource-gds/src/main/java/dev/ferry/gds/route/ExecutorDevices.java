package dev.ferry.gds.route;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceRuntimes;
import dev.ferry.device.cuda.CudaBackend;
import org.apache.spark.TaskContext;
import org.apache.spark.resource.ResourceInformation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Who owns the {@link DeviceRuntime} a gds read uses: one per executor JVM (and device
 * configuration), created lazily by the first task that needs it from the {@code spark.ferry.device.*}
 * settings the scan shipped, shared by every task of the JVM and closed at JVM shutdown. Device
 * memory pools, the cuFile driver and the simulated backend's shared-memory arenas are per process
 * and costly to open, so a runtime per task would pay that on every task, and tasks of one executor
 * could not share memory limits; an executor plugin would own it too, but would make the data source
 * depend on Ferry's plugin being configured. An executor only ever has one configuration; keying by
 * it keeps tests that run several configurations in one JVM apart.
 */
public final class ExecutorDevices
{
    private static final Logger log = LoggerFactory.getLogger(ExecutorDevices.class);
    private static final Map<Map<String, String>, DeviceRuntime> RUNTIMES = new ConcurrentHashMap<>();

    private ExecutorDevices() {}

    /** This JVM's runtime for {@code deviceConf} (the {@code spark.ferry.device.*} settings), created on first use. */
    public static DeviceRuntime runtime(Map<String, String> deviceConf)
    {
        return RUNTIMES.computeIfAbsent(new TreeMap<>(deviceConf), ExecutorDevices::create);
    }

    /** The device this task's batches land on: the task's first assigned {@code gpu} resource, else device 0. */
    public static int taskDevice(DeviceRuntime runtime)
    {
        int count = Math.max(1, runtime.deviceCount());
        TaskContext task = TaskContext.get();
        if (task != null) {
            Option<ResourceInformation> gpu = task.resources().get("gpu");
            if (gpu.isDefined() && gpu.get().addresses().length > 0) {
                try {
                    return Math.floorMod(Integer.parseInt(gpu.get().addresses()[0].trim()), count);
                }
                catch (NumberFormatException e) {
                    return 0;
                }
            }
        }
        return 0;
    }

    /** The topology advisor for files read with {@code runtime}. */
    public static FileRouteAdvisor advisor(DeviceRuntime runtime)
    {
        return (file, device, consumer) -> TopologyFileRoutes.localMachine(CudaBackend.NAME.equals(runtime.backendName())).advise(file, device, consumer);
    }

    private static DeviceRuntime create(Map<String, String> conf)
    {
        DeviceRuntime runtime = DeviceRuntimes.shared(new MapConfigSource(conf));
        log.info("gds: created the device runtime of this JVM lazily from the Spark conf {}: backend {} ({}). One runtime per executor JVM, shared by its tasks "
                + "and closed at JVM shutdown, because device memory, the cuFile driver and simulated arenas are per process and costly to open per task",
                conf, runtime.backendName(), runtime.selectionReason());
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                runtime.close();
            }
            catch (RuntimeException e) {
                log.warn("gds: closing the device runtime at shutdown failed: {}", e.getMessage());
            }
        }, "ferry-gds-device-close"));
        return runtime;
    }
}
