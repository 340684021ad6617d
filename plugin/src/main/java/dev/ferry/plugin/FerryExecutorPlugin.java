package dev.ferry.plugin;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.ferry.conf.ConfigSource;
import dev.ferry.conf.SparkConfigSources;
import dev.ferry.device.DeviceConfigKeys;
import dev.ferry.device.DeviceMode;
import dev.ferry.device.DeviceRuntimes;
import dev.ferry.device.ExecutorGpu;
import dev.ferry.device.cuda.CudaAvailability;
import dev.ferry.device.cuda.CudaProbe;
import dev.ferry.shuffle.FerryShuffleManager;
import dev.ferry.shuffle.placement.ExecutorPlace;
import dev.ferry.shuffle.placement.ExecutorTopology;
import dev.ferry.topology.file.TopologyFileWriter;
import dev.ferry.topology.model.NodeTopology;
import org.apache.spark.SparkEnv;
import org.apache.spark.api.plugin.ExecutorPlugin;
import org.apache.spark.api.plugin.PluginContext;
import org.apache.spark.resource.ResourceInformation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Executor side: finds this executor's node once at start and reports it to the driver, then asks
 * the driver every {@code spark.ferry.executor.departurePollMillis} which executors left and drops them from its shuffle
 * transport ({@link DepartureWatcher}).
 */
public final class FerryExecutorPlugin
        implements ExecutorPlugin
{
    private static final Logger LOG = LoggerFactory.getLogger(FerryExecutorPlugin.class);
    // One small ask per executor per interval; a departed peer's connections then close within it.

    private DepartureWatcher departures;

    @Override
    public void init(PluginContext context, Map<String, String> extraConf)
    {
        ConfigSource conf = SparkConfigSources.of(context.conf());
        requireCudaWhereSet(conf);
        StartLine.printOnce(LOG, "executor " + context.executorID(), conf);
        String hostname = ExecutorHost.of(SparkEnv.get());
        List<String> gpuAddresses = gpuAddresses(context);
        Optional<ExecutorTopology.Known> known = NodeLocator.place(conf, context.executorID(), hostname, gpuAddresses);
        NodeTopology node;
        if (known.isPresent()) {
            // From the topology file: a real node named like this host, or a simulated node and GPU.
            node = known.get().cluster().node(known.get().place().node()).orElseThrow();
            ExecutorTopology.install(known.get().cluster(), known.get().place());
            String source = gpuAddresses.isEmpty() ? "topology placement" : "Spark gpu resource address " + gpuAddresses.get(0);
            known.get().place().gpu().flatMap(node::gpu).ifPresent(gpu -> ExecutorGpu.install(node, gpu, source));
        }
        else {
            node = NodeLocator.probe(conf, hostname);
            Optional<ExecutorPlace> place = probedPlace(context.executorID(), node, gpuAddresses);
            if (PluginConfigKeys.PROBED_ROUTES.get(conf) && place.isPresent()) {
                // Routes per peer from the probed facts: this node now, the peers' as the driver merges their reports.
                ExecutorTopology.install(new ProbedClusterView(context.executorID(), node, context::ask), place.get());
            }
        }
        String summary = NodeLocator.summarize(node);
        LOG.info("Ferry executor {} on {}: {}{}", context.executorID(), hostname, summary,
                known.map(place -> "; placed on " + place.place() + " of topology " + place.cluster().name()).orElse(""));
        ExecutorPlacement placement = new ExecutorPlacement(
                context.executorID(),
                hostname,
                gpuAddresses,
                TopologyFileWriter.node(node).toString(),
                summary);
        try {
            context.send(placement);
        }
        catch (Exception e) {
            // The executor still works without the driver's map; the driver then plans as if its
            // topology were unknown, so say so loudly rather than failing the executor.
            LOG.warn("Ferry executor {} could not report its placement to the driver: {}", context.executorID(), e.toString());
        }
        departures = new DepartureWatcher(context.executorID(), context::ask, FerryExecutorPlugin::dropPeer);
        departures.start(departurePoll(conf));
    }

    /**
     * {@code spark.ferry.device=cuda} on an executor without usable CUDA fails the executor's start,
     * naming the setting: one behaviour, instead of a shuffle that falls back and a gds read that fails.
     */
    static void requireCudaWhereSet(ConfigSource conf)
    {
        if (DeviceConfigKeys.DEVICE.get(conf) == DeviceMode.CUDA) {
            CudaAvailability cuda = CudaProbe.availability();
            if (!cuda.available()) {
                throw DeviceRuntimes.cudaRequiredButMissing(cuda);
            }
        }
    }

    /** The poll interval, refused unless positive (a zero would spin against the driver). */
    static Duration departurePoll(ConfigSource conf)
    {
        int millis = PluginConfigKeys.DEPARTURE_POLL_MILLIS.get(conf);
        if (millis <= 0) {
            throw new IllegalArgumentException(PluginConfigKeys.DEPARTURE_POLL_MILLIS.name() + " must be positive, got " + millis);
        }
        return Duration.ofMillis(millis);
    }

    /** The departed executor's connections and route in this executor's Ferry shuffle transport, if the shuffle has started here. */
    private static int dropPeer(String executorId)
    {
        SparkEnv env = SparkEnv.get();
        if (env != null && env.shuffleManager() instanceof FerryShuffleManager manager) {
            return manager.runtimeIfStarted().map(runtime -> runtime.transport().peerLeft(executorId)).orElse(0);
        }
        return 0;
    }

    @Override
    public void shutdown()
    {
        if (departures != null) {
            departures.close();
        }
    }

    /**
     * On a probed node, the GPU Spark assigned becomes this executor's GPU (the device store and the
     * gds reader then use it, matched by PCI bus id) and its place. An address the probes cannot
     * find (NVML not loaded, a discovery script that names GPUs differently) leaves the executor
     * without a GPU place, said once at WARN: its device store then uses device 0 and the gds reader
     * takes the address as a device ordinal (by index, said in its route reason; HOST when out of range).
     * Without GPU scheduling it takes GPU {@code id mod gpus} of its node, as on a topology file's host-named node.
     */
    private static Optional<ExecutorPlace> probedPlace(String executorId, NodeTopology node, List<String> gpuAddresses)
    {
        ExecutorPlace place;
        try {
            place = NodeLocator.probedPlace(node, executorId, gpuAddresses);
        }
        catch (IllegalArgumentException e) {
            LOG.warn("Ferry executor {}: {}; it is placed on node {} without a GPU", executorId, e.getMessage(), node.hostname());
            try {
                place = new ExecutorPlace(node.hostname(), Optional.empty());
            }
            catch (IllegalArgumentException invalid) {
                LOG.warn("Ferry executor {}: host {} cannot name a node ({}); its shuffle routes every peer over TCP", executorId, node.hostname(), invalid.getMessage());
                return Optional.empty();
            }
        }
        String source = gpuAddresses.isEmpty() ? "probed node, executor id order" : "Spark gpu resource address " + gpuAddresses.get(0);
        place.gpu().flatMap(node::gpu).ifPresent(gpu -> ExecutorGpu.install(node, gpu, source));
        return Optional.of(place);
    }

    private static List<String> gpuAddresses(PluginContext context)
    {
        ResourceInformation gpus = context.resources().get("gpu");
        return gpus == null ? List.of() : List.of(gpus.addresses());
    }
}
