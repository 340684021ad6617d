package dev.ferry.device;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import dev.ferry.topology.model.Gpu;
import dev.ferry.topology.model.NodeTopology;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.util.Objects.requireNonNull;

/**
 * This executor JVM's GPU: the one Spark assigned (or the topology placement chose), with the
 * facts of its node (NVML/sysfs probes or the topology file), so the device store, the reader and
 * IPC imports all use that GPU. Installed by the Ferry executor plugin at executor start (before any
 * task); the CUDA device is matched by PCI bus id ({@link DeviceMatch}), since CUDA ordinals need
 * not follow Spark's addresses. In the device module so the shuffle and the gds reader both reach it.
 */
public final class ExecutorGpu
{
    private static final Logger LOG = LoggerFactory.getLogger(ExecutorGpu.class);
    private static final AtomicReference<Assigned> CURRENT = new AtomicReference<>();

    private ExecutorGpu() {}

    /** A GPU of a node; {@code source} says who chose it (for logs). */
    public record Assigned(NodeTopology node, Gpu gpu, String source)
    {
        public Assigned
        {
            requireNonNull(node, "node is null");
            requireNonNull(gpu, "gpu is null");
            requireNonNull(source, "source is null");
        }
    }

    public static void install(NodeTopology node, Gpu gpu, String source)
    {
        CURRENT.set(new Assigned(node, gpu, source));
    }

    public static Optional<Assigned> current()
    {
        return Optional.ofNullable(CURRENT.get());
    }

    /** Forgets the installed GPU (tests). */
    public static void clear()
    {
        CURRENT.set(null);
    }

    /**
     * The device of {@code runtime} this executor's outputs and reads belong on: the installed
     * GPU, matched by PCI bus id; device 0 when no GPU was installed (no GPU scheduling and no
     * topology placement), said in the log.
     *
     * @throws IllegalStateException when the installed GPU is not among the runtime's devices
     */
    public static DeviceMatch device(DeviceRuntime runtime)
    {
        Optional<Assigned> assigned = current();
        if (assigned.isEmpty()) {
            return new DeviceMatch(0, "no GPU assigned to this executor (no gpu resource and no topology placement): device 0");
        }
        Gpu gpu = assigned.get().gpu();
        DeviceMatch match = DeviceMatch.find(runtime.devices(), gpu.pci(), gpu.index())
                .orElseThrow(() -> new IllegalStateException("This executor's GPU " + gpu.name() + " (index " + gpu.index() + gpu.pci().map(pci -> ", PCI " + pci).orElse("")
                        + ", " + assigned.get().source() + ") is not among the " + runtime.backendName() + " backend's devices " + runtime.devices()));
        LOG.info("Executor GPU {} of node {} ({}): {}", gpu.name(), assigned.get().node().hostname(), assigned.get().source(), match.reason());
        return match;
    }

    /**
     * The device of {@code runtime} for a task's Spark {@code gpu} address ({@code sparkAddress};
     * empty without GPU scheduling). With an installed GPU the address is looked up on its node (NVML
     * index, name or UUID) and matched by PCI bus id ({@link DeviceMatch}); without one (no Ferry
     * plugin) only an address that is a device ordinal of the runtime matches, by index. Never a
     * different GPU: an address that matches no visible device is unmatched, with the reason.
     */
    public static GpuResolution resolve(DeviceRuntime runtime, Optional<String> sparkAddress)
    {
        Optional<Assigned> assigned = current();
        if (sparkAddress.isEmpty()) {
            if (assigned.isEmpty()) {
                return GpuResolution.matched(new DeviceMatch(0, "no GPU assigned to this executor or task: device 0"));
            }
            return visible(runtime, assigned.get().gpu(), assigned.get().source());
        }
        String address = sparkAddress.get().trim();
        String source = "Spark gpu resource address " + address;
        if (assigned.isPresent()) {
            NodeTopology node = assigned.get().node();
            for (Gpu gpu : node.gpus()) {
                if (address.equals(Integer.toString(gpu.index())) || address.equals(gpu.name()) || gpu.uuid().map(address::equals).orElse(false)) {
                    return visible(runtime, gpu, source);
                }
            }
            return GpuResolution.unmatched(source + " names no GPU of node " + node.hostname() + " (it has "
                    + node.gpus().stream().map(gpu -> gpu.index() + "=" + gpu.name()).toList() + ")");
        }
        int index;
        try {
            index = Integer.parseInt(address);
        }
        catch (NumberFormatException e) {
            return GpuResolution.unmatched(source + " is not a device ordinal and no node facts are installed to look it up by name (is the Ferry plugin configured?)");
        }
        return DeviceMatch.find(runtime.devices(), Optional.empty(), index)
                .map(GpuResolution::matched)
                .orElseGet(() -> GpuResolution.unmatched(source + " is not among the " + runtime.backendName() + " backend's " + runtime.deviceCount() + " device(s)"));
    }

    private static GpuResolution visible(DeviceRuntime runtime, Gpu gpu, String source)
    {
        return DeviceMatch.find(runtime.devices(), gpu.pci(), gpu.index())
                .map(GpuResolution::matched)
                .orElseGet(() -> GpuResolution.unmatched("GPU " + gpu.name() + " (index " + gpu.index() + gpu.pci().map(pci -> ", PCI " + pci).orElse("")
                        + ", " + source + ") is not among the " + runtime.backendName() + " backend's visible devices " + runtime.devices()));
    }
}
