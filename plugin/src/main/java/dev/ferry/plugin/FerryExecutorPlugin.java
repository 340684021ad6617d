package dev.ferry.plugin;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.ferry.conf.ConfigSource;
import dev.ferry.conf.SparkConfigSources;
import dev.ferry.shuffle.route.ExecutorTopology;
import dev.ferry.topology.file.TopologyFileWriter;
import dev.ferry.topology.model.NodeTopology;
import org.apache.spark.SparkEnv;
import org.apache.spark.api.plugin.ExecutorPlugin;
import org.apache.spark.api.plugin.PluginContext;
import org.apache.spark.resource.ResourceInformation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Executor side: finds this executor's node once at start and reports it to the driver. */
public final class FerryExecutorPlugin
        implements ExecutorPlugin
{
    private static final Logger LOG = LoggerFactory.getLogger(FerryExecutorPlugin.class);

    @Override
    public void init(PluginContext context, Map<String, String> extraConf)
    {
        ConfigSource conf = SparkConfigSources.of(context.conf());
        String hostname = ExecutorHost.of(SparkEnv.get());
        Optional<ExecutorTopology.Known> known = NodeLocator.place(conf, context.executorID(), hostname);
        NodeTopology node;
        if (known.isPresent()) {
            // From the topology file: a real node named like this host, or a simulated node and GPU.
            node = known.get().cluster().node(known.get().place().node()).orElseThrow();
            ExecutorTopology.install(known.get().cluster(), known.get().place());
        }
        else {
            node = NodeLocator.locate(conf, hostname);
        }
        String summary = NodeLocator.summarize(node);
        LOG.info("Ferry executor {} on {}: {}{}", context.executorID(), hostname, summary,
                known.map(place -> "; placed on " + place.place() + " of topology " + place.cluster().name()).orElse(""));
        ExecutorPlacement placement = new ExecutorPlacement(
                context.executorID(),
                hostname,
                gpuAddresses(context),
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
    }

    private static List<String> gpuAddresses(PluginContext context)
    {
        ResourceInformation gpus = context.resources().get("gpu");
        return gpus == null ? List.of() : List.of(gpus.addresses());
    }
}
