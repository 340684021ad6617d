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
        return probe(conf, hostname);
    }

    /**
     * This machine's node, named {@code hostname} (the host Spark knows the executor by, which peers'
     * map output locations carry): from the probes, or from {@code spark.ferry.topology.probeOverride}
     * standing in for them (the node named like the host, else the file's only node).
     */
    public static NodeTopology probe(ConfigSource conf, String hostname)
    {
        String override = PluginConfigKeys.PROBE_OVERRIDE.get(conf);
        NodeTopology probed;
        if (!override.isEmpty()) {
            ClusterTopology cluster = TopologyFileReader.load(Path.of(override));
            probed = cluster.node(hostname).or(() -> cluster.nodes().size() == 1 ? Optional.of(cluster.nodes().get(0)) : Optional.empty())
                    .orElseThrow(() -> new IllegalArgumentException(PluginConfigKeys.PROBE_OVERRIDE.name() + " " + override + " has no node named '" + hostname
                            + "' and more than one node: " + cluster.nodes().stream().map(NodeTopology::hostname).collect(Collectors.toList())));
        }
        else {
            ProbeOptions options = new ProbeOptions(Path.of(PluginConfigKeys.SYSFS_ROOT.get(conf)), Path.of("/proc"), PluginConfigKeys.PROBE_NVML.get(conf));
            probed = MachineProber.probe(options);
        }
        return probed.hostname().equals(hostname) ? probed : probed.toBuilder().hostname(hostname).build();
    }

    /**
     * Without a topology file, this executor's place on its probed {@code node}: the node (named like
     * its host) and the GPU Spark assigned ({@code sparkGpuAddresses}: NVML index, name or UUID,
     * {@link ExecutorPlacements#assignedGpu}); without an assignment the same default as a
     * host-named node of a topology file (GPU {@code id mod gpus}). An address the probes cannot
     * find leaves the place without a GPU, said at WARN by the caller.
     */
    public static ExecutorPlace probedPlace(NodeTopology node, String executorId, List<String> sparkGpuAddresses)
    {
        return ExecutorPlacements.assign(ClusterTopology.single(node), executorId, node.hostname(), "", sparkGpuAddresses);
    }

    /**
     * With a topology file, this executor's place in it ({@link ExecutorPlacements}: the override in
     * {@code spark.ferry.shuffle.executorPlacement}, else the node named like its host, else round-robin
     * in executor-id order, which turns {@code local-cluster[N,...]} into a simulated multi-node
     * cluster). Its GPU is the one Spark assigned ({@code sparkGpuAddresses}, the executor's {@code gpu}
     * resource; empty without GPU scheduling). Empty without a topology file ({@link #probedPlace} then).
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
