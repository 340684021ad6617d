package dev.ferry.topology.cli;

import dev.ferry.conf.ConfigKey;
import dev.ferry.topology.TopologyConfigKeys;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * The parsed command line of {@code ferry topology}.
 *
 * @param nvidiaSmi a {@code nvidia-smi topo -m} capture to read
 * @param sysfs a sysfs tree to probe instead of {@code /sys}
 * @param topology a topology file to load
 * @param file {@code --file PATH}: a file of this machine whose reads to decide too
 * @param peerMemory {@code --peermem yes|no}: overrides the peer-memory fact of every node
 * @param svg {@code --svg FILE}: also write an SVG drawing of the topology and its routes there
 * @param json print JSON instead of text
 * @param verbose print every decision in full instead of the summary
 * @param help print usage
 * @param conf {@code --conf key=value} settings
 */
record TopologyArguments(
        Optional<Path> nvidiaSmi,
        Optional<Path> sysfs,
        Optional<Path> topology,
        Optional<Path> file,
        Optional<Boolean> peerMemory,
        Optional<Path> svg,
        boolean json,
        boolean verbose,
        boolean help,
        Map<String, String> conf)
{
    private static final Set<String> TAKES_VALUE = Set.of("--nvidia-smi", "--sysfs", "--topology", "--file", "--peermem", "--svg", "--conf");
    private static final List<String> KNOWN_KEYS = new TopologyConfigKeys().keys().stream().map(ConfigKey::name).toList();

    static final String USAGE = String.join("\n",
            "Usage: ferry topology [--nvidia-smi FILE | --topology FILE | --sysfs DIR | --file PATH] [--peermem yes|no]",
            "                      [--verbose | --json] [--svg FILE] [--conf spark.ferry.KEY=VALUE]...",
            "",
            "Prints a summary of the devices (GPUs, RDMA NICs, NVMe) and how many device pairs got each route;",
            "--verbose prints the device matrix and every route decision with its reason instead.",
            "With no input it probes this machine and says what it could not see.",
            "",
            "  --nvidia-smi FILE   read a 'nvidia-smi topo -m' capture",
            "  --topology FILE     load a topology file (JSON; one or more nodes)",
            "  --sysfs DIR         probe a sysfs tree instead of /sys (NVML is not asked)",
            "  --file PATH         also decide how PATH would be read into each GPU of this machine (GDS or BOUNCE),",
            "                      or into host memory (HOST) without a GPU; PATH is found through this machine's",
            "                      mount table and /sys, so it cannot go with --nvidia-smi, --topology or --sysfs",
            "  --peermem yes|no    whether a peer-memory module (nvidia_peermem) or DMA-BUF is available",
            "  --verbose           print the device matrix and every decision with its rule, reason and runner-up",
            "  --json              print one JSON object (every decision) instead of text",
            "  --svg FILE          also write an SVG drawing of the nodes, GPUs, NICs, NVMe drives and links, each",
            "                      link labelled with its path and route; the report is still printed",
            "  --conf KEY=VALUE    a spark.ferry.* setting, e.g. spark.ferry.route.p2pLevel=PHB",
            "  --help              print this text",
            "");

    TopologyArguments
    {
        requireNonNull(nvidiaSmi, "nvidiaSmi is null");
        requireNonNull(sysfs, "sysfs is null");
        requireNonNull(topology, "topology is null");
        requireNonNull(file, "file is null");
        requireNonNull(peerMemory, "peerMemory is null");
        requireNonNull(svg, "svg is null");
        conf = Map.copyOf(requireNonNull(conf, "conf is null"));
    }

    /** Parses; an {@link IllegalArgumentException} carries a message for the user. */
    static TopologyArguments parse(List<String> args)
    {
        Optional<Path> nvidiaSmi = Optional.empty();
        Optional<Path> sysfs = Optional.empty();
        Optional<Path> topology = Optional.empty();
        Optional<Path> file = Optional.empty();
        Optional<Boolean> peerMemory = Optional.empty();
        Optional<Path> svg = Optional.empty();
        boolean json = false;
        boolean verbose = false;
        boolean help = false;
        Map<String, String> conf = new LinkedHashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            String value = null;
            int equals = arg.indexOf('=');
            if (arg.startsWith("--") && equals > 0) {
                value = arg.substring(equals + 1);
                arg = arg.substring(0, equals);
            }
            else if (TAKES_VALUE.contains(arg)) {
                value = next(args, ++i, arg);
            }
            switch (arg) {
                case "--json":
                    noValue(arg, value);
                    json = true;
                    break;
                case "--verbose":
                case "-v":
                    noValue(arg, value);
                    verbose = true;
                    break;
                case "--help":
                case "-h":
                    noValue(arg, value);
                    help = true;
                    break;
                case "--nvidia-smi":
                    nvidiaSmi = once(arg, nvidiaSmi, value);
                    break;
                case "--sysfs":
                    sysfs = once(arg, sysfs, value);
                    break;
                case "--topology":
                    topology = once(arg, topology, value);
                    break;
                case "--file":
                    file = once(arg, file, value);
                    break;
                case "--svg":
                    svg = once(arg, svg, value);
                    break;
                case "--peermem":
                    if (peerMemory.isPresent()) {
                        throw new IllegalArgumentException("--peermem given twice");
                    }
                    peerMemory = Optional.of(yesNo(value));
                    break;
                case "--conf":
                    int split = value.indexOf('=');
                    if (split <= 0 || !value.startsWith("spark.ferry.")) {
                        throw new IllegalArgumentException("--conf expects spark.ferry.KEY=VALUE, got '" + value + "'");
                    }
                    String key = value.substring(0, split);
                    // A misspelt threshold would silently keep its default
                    if ((key.startsWith("spark.ferry.topology.") || key.startsWith("spark.ferry.route.")) && !KNOWN_KEYS.contains(key)) {
                        throw new IllegalArgumentException("Unknown setting '" + key + "'; topology and route settings are: " + String.join(", ", KNOWN_KEYS));
                    }
                    conf.put(key, value.substring(split + 1));
                    break;
                default:
                    throw new IllegalArgumentException("Unknown argument '" + args.get(i) + "'");
            }
        }
        int inputs = (nvidiaSmi.isPresent() ? 1 : 0) + (sysfs.isPresent() ? 1 : 0) + (topology.isPresent() ? 1 : 0);
        if (inputs > 1) {
            throw new IllegalArgumentException("Give at most one of --nvidia-smi, --topology and --sysfs");
        }
        if (json && verbose) {
            throw new IllegalArgumentException("Give one of --json and --verbose: JSON always holds every decision");
        }
        if (file.isPresent() && inputs > 0) {
            // The mount table and /sys that locate the file are this machine's; a capture, file or tree describes another
            throw new IllegalArgumentException("--file is located through this machine's mount table and /sys, so it goes only with "
                    + "the probe of this machine, not with --nvidia-smi, --topology or --sysfs");
        }
        return new TopologyArguments(nvidiaSmi, sysfs, topology, file, peerMemory, svg, json, verbose, help, conf);
    }

    private static String next(List<String> args, int index, String option)
    {
        if (index >= args.size() || args.get(index).startsWith("--")) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args.get(index);
    }

    private static Optional<Path> once(String option, Optional<Path> previous, String value)
    {
        if (previous.isPresent()) {
            throw new IllegalArgumentException(option + " given twice");
        }
        if (value.isEmpty()) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return Optional.of(Path.of(value));
    }

    private static void noValue(String option, String value)
    {
        if (value != null) {
            throw new IllegalArgumentException(option + " takes no value");
        }
    }

    private static boolean yesNo(String value)
    {
        switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "yes":
            case "true":
                return true;
            case "no":
            case "false":
                return false;
            default:
                throw new IllegalArgumentException("--peermem expects yes or no, got '" + value + "'");
        }
    }
}
