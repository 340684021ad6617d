package dev.ferry.plugin;

import java.util.List;

import dev.ferry.conf.ConfigKey;
import dev.ferry.conf.ConfigKeySet;

/** Settings of the plugin entry point itself. */
public final class PluginConfigKeys
        implements ConfigKeySet
{
    public static final ConfigKey<String> TOPOLOGY_FILE = ConfigKey.string("spark.ferry.topology.file", "",
            "A cluster topology file (see examples/topologies/). When set, an executor takes its node from this file by "
                    + "host name instead of probing, for machines whose topology cannot be probed (cloud VMs hide PCIe "
                    + "switches) and for simulated clusters. Empty: probe each machine.");
    public static final ConfigKey<Boolean> PROBE_NVML = ConfigKey.bool("spark.ferry.topology.nvml", true,
            "Ask NVML (the NVIDIA driver) for GPUs, NVLinks and P2P status when probing. Off: sysfs only.");
    public static final ConfigKey<String> SYSFS_ROOT = ConfigKey.string("spark.ferry.topology.sysfsRoot", "/sys",
            "Where the probe reads sysfs; a copied tree can stand in for /sys.");
    public static final ConfigKey<Boolean> PROBED_ROUTES = ConfigKey.bool("spark.ferry.topology.probedRoutes", true,
            "Without spark.ferry.topology.file: each executor reports its probed node to the driver, which merges one node per host, "
                    + "and the shuffle routes every peer by those facts (same host: shared memory or GPU peer routes by the probed GPU pair; "
                    + "other hosts: by the probed NICs), with the same route policy as a topology file. Off: every remote fetch goes over TCP.");
    public static final ConfigKey<String> PROBE_OVERRIDE = ConfigKey.string("spark.ferry.topology.probeOverride", "",
            "A topology file whose node stands in for this machine's probes (the node named like the executor's host, else its only node): "
                    + "the executor reports it as if probed. For tests and dry runs of probed routes on machines without the hardware; "
                    + "ignored when spark.ferry.topology.file is set.");
    public static final ConfigKey<Integer> DEPARTURE_POLL_MILLIS = ConfigKey.integer("spark.ferry.executor.departurePollMillis", 2000,
            "How often an executor asks the driver which executors have left, to close its connections and routes to them. "
                    + "A fetch from a departed peer fails on its own either way (Spark reruns the map stage); this bounds how long "
                    + "idle connections, mappings and shared memory held for it outlive it.");

    @Override
    public String section()
    {
        return "Plugin";
    }

    @Override
    public List<ConfigKey<?>> keys()
    {
        return List.of(TOPOLOGY_FILE, PROBE_NVML, SYSFS_ROOT, PROBED_ROUTES, PROBE_OVERRIDE, DEPARTURE_POLL_MILLIS);
    }
}
