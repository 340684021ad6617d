package dev.ferry.gds.route;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceRuntimes;
import dev.ferry.device.ExecutorGpu;
import dev.ferry.device.GpuResolution;
import dev.ferry.device.cuda.CudaBackend;
import org.apache.spark.TaskContext;
import org.apache.spark.resource.ResourceInformation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

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
    private static final AtomicLong UNMATCHED = new AtomicLong();
    private static final AtomicLong CREATED = new AtomicLong();
    private static final AtomicBoolean WARNED_UNMATCHED = new AtomicBoolean();

    private ExecutorDevices() {}

    /** This JVM's runtime for {@code deviceConf} (the {@code spark.ferry.device.*} settings), created on first use. */
    public static DeviceRuntime runtime(Map<String, String> deviceConf)
    {
        return RUNTIMES.computeIfAbsent(new TreeMap<>(deviceConf), ExecutorDevices::create);
    }

    /**
     * The device this task's batches land on: the task's first assigned {@code gpu} resource, matched to
     * the runtime's devices by PCI bus id ({@link ExecutorGpu#resolve}); else the executor's GPU, else
     * device 0. Unmatched when the assigned GPU is not visible here: the caller reads on HOST, never
     * on another GPU.
     */
    public static GpuResolution taskDevice(DeviceRuntime runtime)
    {
        Optional<String> address = Optional.empty();
        TaskContext task = TaskContext.get();
        if (task != null) {
            Option<ResourceInformation> gpu = task.resources().get("gpu");
            if (gpu.isDefined() && gpu.get().addresses().length > 0) {
                address = Optional.of(gpu.get().addresses()[0]);
            }
        }
        GpuResolution resolution = ExecutorGpu.resolve(runtime, address);
        if (resolution.match().isEmpty()) {
            UNMATCHED.incrementAndGet();
            if (WARNED_UNMATCHED.compareAndSet(false, true)) {
                log.warn("gds: {}; reading on HOST (said once per JVM, counted in unmatchedGpus())", resolution.reason());
            }
        }
        return resolution;
    }

    /** Tasks whose assigned GPU was not among the runtime's devices (and read on HOST) in this JVM. */
    public static long unmatchedGpus()
    {
        return UNMATCHED.get();
    }

    /** The topology advisor for files read with {@code runtime}. */
    public static FileRouteAdvisor advisor(DeviceRuntime runtime)
    {
        return (file, device, consumer) -> TopologyFileRoutes.localMachine(CudaBackend.NAME.equals(runtime.backendName())).advise(file, device, consumer);
    }

    /** Device runtimes this JVM created for gds reads (a host read, forced or for a CPU consumer, creates none). */
    public static long created()
    {
        return CREATED.get();
    }

    private static DeviceRuntime create(Map<String, String> conf)
    {
        DeviceRuntime runtime = DeviceRuntimes.shared(new MapConfigSource(conf));
        CREATED.incrementAndGet();
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
