package dev.ferry.plugin;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

import dev.ferry.conf.ConfigSource;
import dev.ferry.shuffle.ShuffleConfigKeys;
import dev.ferry.shuffle.placement.ExecutorPlace;
import dev.ferry.shuffle.placement.ExecutorPlacements;
import dev.ferry.shuffle.placement.ExecutorTopology;
import dev.ferry.topology.file.TopologyFileReader;
import dev.ferry.topology.model.ClusterTopology;
import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.model.ProbeReport;
import dev.ferry.topology.probe.MachineProber;
import dev.ferry.topology.probe.ProbeOptions;

/**
 * Finds the node an executor runs on: from the configured topology file by host name, or by probing
 * this machine. Probing never throws for missing hardware; each probe reports what it could not see.
 */
public final class NodeLocator
{
    private NodeLocator() {}

    public static NodeTopology locate(ConfigSource conf, String hostname)
    {
        String file = PluginConfigKeys.TOPOLOGY_FILE.get(conf);
        if (!file.isEmpty()) {
            ClusterTopology cluster = TopologyFileReader.load(Path.of(file));
            return cluster.nodes().stream()
                    .filter(node -> node.hostname().equals(hostname))
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("Topology file " + file + " (" + PluginConfigKeys.TOPOLOGY_FILE.name()
                            + ") has no node named '" + hostname + "'; it has " + cluster.nodes().stream().map(NodeTopology::hostname).collect(Collectors.toList())));
        }
        ProbeOptions options = new ProbeOptions(Path.of(PluginConfigKeys.SYSFS_ROOT.get(conf)), Path.of("/proc"), PluginConfigKeys.PROBE_NVML.get(conf));
        return MachineProber.probe(options);
    }

    /**
     * With a topology file, this executor's place in it ({@link ExecutorPlacements}: the override in
     * {@code spark.ferry.shuffle.executorPlacement}, else the node named like its host, else round-robin
     * in executor-id order, which turns {@code local-cluster[N,...]} into a simulated multi-node
     * cluster). Its GPU is the one Spark assigned ({@code sparkGpuAddresses}, the executor's {@code gpu}
     * resource; empty without GPU scheduling). Empty without a topology file.
     */
    public static Optional<ExecutorTopology.Known> place(ConfigSource conf, String executorId, String hostname, List<String> sparkGpuAddresses)
    {
        String file = PluginConfigKeys.TOPOLOGY_FILE.get(conf);
        if (file.isEmpty()) {
            return Optional.empty();
        }
        ClusterTopology cluster = TopologyFileReader.load(Path.of(file));
        ExecutorPlace place = ExecutorPlacements.assign(cluster, executorId, hostname, ShuffleConfigKeys.EXECUTOR_PLACEMENT.get(conf), sparkGpuAddresses);
        return Optional.of(new ExecutorTopology.Known(cluster, place));
    }

    /** One line: device counts and every probe that did not run, with its reason. */
    public static String summarize(NodeTopology node)
    {
        StringBuilder line = new StringBuilder()
                .append(node.gpus().size()).append(" GPU(s), ")
                .append(node.nics().size()).append(" RDMA NIC(s), ")
                .append(node.nvmes().size()).append(" NVMe drive(s)");
        for (ProbeReport report : node.reports()) {
            if (!report.ran()) {
                line.append("; ").append(report.detail());
            }
        }
        return line.toString();
    }
}
