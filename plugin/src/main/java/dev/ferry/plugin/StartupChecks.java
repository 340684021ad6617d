package dev.ferry.plugin;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import dev.ferry.conf.ConfigCheck;
import dev.ferry.shuffle.ShuffleConfigKeys;
import dev.ferry.shuffle.placement.ExecutorPlacements;
import dev.ferry.topology.file.TopologyFileReader;
import dev.ferry.topology.model.ClusterTopology;
import org.apache.spark.SparkConf;
import scala.Tuple2;

/**
 * The driver's one look at every {@code spark.ferry.*} setting, at start: a bad value, a topology
 * file that does not load, or an executor placement naming a node or GPU the file lacks fails the
 * application there, naming the key, instead of at the first query or by killing executors.
 */
public final class StartupChecks
{
    private StartupChecks() {}

    /**
     * What the check found: warnings for the log (unknown keys, settings that do nothing as set) and
     * the topology file's cluster, when one is set.
     */
    public record Result(List<String> warnings, Optional<ClusterTopology> topologyFile) {}

    public static Result run(SparkConf conf)
    {
        Map<String, String> settings = new TreeMap<>();
        for (Tuple2<String, String> entry : conf.getAll()) {
            settings.put(entry._1(), entry._2());
        }
        return run(settings);
    }

    public static Result run(Map<String, String> settings)
    {
        List<String> warnings = new java.util.ArrayList<>(ConfigCheck.check(settings));
        String file = settings.getOrDefault(PluginConfigKeys.TOPOLOGY_FILE.name(), "").trim();
        String placement = settings.getOrDefault(ShuffleConfigKeys.EXECUTOR_PLACEMENT.name(), "").trim();
        if (file.isEmpty()) {
            if (!placement.isEmpty()) {
                warnings.add(ShuffleConfigKeys.EXECUTOR_PLACEMENT.name() + " is ignored without " + PluginConfigKeys.TOPOLOGY_FILE.name()
                        + " (probed executors take the GPU Spark assigned)");
            }
            return new Result(warnings, Optional.empty());
        }
        if (!Files.isReadable(Path.of(file))) {
            throw new IllegalArgumentException(PluginConfigKeys.TOPOLOGY_FILE.name() + "=" + file + ": no readable file there on the driver"
                    + " (executors read the same path)");
        }
        ClusterTopology cluster;
        try {
            cluster = TopologyFileReader.load(Path.of(file));
        }
        catch (RuntimeException e) {
            throw new IllegalArgumentException(PluginConfigKeys.TOPOLOGY_FILE.name() + "=" + file + ": " + e.getMessage(), e);
        }
        ExecutorPlacements.check(cluster, placement);
        return new Result(warnings, Optional.of(cluster));
    }
}
