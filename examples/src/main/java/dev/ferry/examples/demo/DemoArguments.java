package dev.ferry.examples.demo;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/** {@code bin/ferry demo [--size S | --rows N] [--master M] [--topology FILE] [--dir DIR]}. */
final class DemoArguments
{
    static final String DEFAULT_TOPOLOGY = "examples/topologies/dgx-h100-ib-2node.json";
    static final String DEFAULT_MASTER = "local-cluster[4,1,1024]";
    static final String DEFAULT_DIRECTORY = "target/ferry-demo";
    static final String USAGE = String.join("\n",
            "usage: bin/ferry demo [--size S | --rows N] [--master M] [--topology FILE] [--dir DIR]",
            "  --size S         Parquet to generate, e.g. 50m, 300m, 1g (default " + DemoSize.DEFAULT + "; see below)",
            "  --rows N         lineitem rows to generate instead of --size (orders N/4, customers N/40, parts N/50)",
            "  --master M       Spark master (default " + DEFAULT_MASTER + ": four executor JVMs over the simulated cluster;",
            "                   local[2] runs in this JVM, where every peer is LOCAL)",
            "  --topology FILE  simulated cluster the executors are placed on (default " + DEFAULT_TOPOLOGY + ")",
            "  --dir DIR        data cache and report (default " + DEFAULT_DIRECTORY + " in the repository; the data is",
            "                   generated once per size and reused by later runs)",
            "",
            "The default (200 MB of Parquet) runs in about six minutes on an idle 2-core, 24 GB machine with four",
            "executor JVMs, data generation included (later runs reuse the data); --size 50m takes about two.",
            "");

    private final String master;
    private final DemoSize size;
    private final Path topology;
    private final Optional<Path> directory;
    private final boolean help;

    private DemoArguments(String master, DemoSize size, Path topology, Optional<Path> directory, boolean help)
    {
        this.master = requireNonNull(master, "master is null");
        this.size = requireNonNull(size, "size is null");
        this.topology = requireNonNull(topology, "topology is null");
        this.directory = requireNonNull(directory, "directory is null");
        this.help = help;
    }

    static DemoArguments parse(String[] args)
    {
        String master = DEFAULT_MASTER;
        DemoSize size = DemoSize.parse(DemoSize.DEFAULT);
        boolean sizeGiven = false;
        boolean rowsGiven = false;
        Path topology = Path.of(DEFAULT_TOPOLOGY);
        Optional<Path> directory = Optional.empty();
        boolean help = false;
        List<String> rest = new ArrayList<>(List.of(args));
        while (!rest.isEmpty()) {
            String flag = rest.remove(0);
            switch (flag) {
                case "--master" -> master = value(flag, rest);
                case "--size" -> {
                    size = DemoSize.parse(value(flag, rest));
                    sizeGiven = true;
                }
                case "--rows" -> {
                    size = DemoSize.rows(positive(flag, value(flag, rest)));
                    rowsGiven = true;
                }
                case "--topology" -> topology = Path.of(value(flag, rest));
                case "--dir" -> directory = Optional.of(Path.of(value(flag, rest)));
                case "-h", "--help" -> help = true;
                default -> throw new IllegalArgumentException("Unknown argument '" + flag + "'");
            }
        }
        if (sizeGiven && rowsGiven) {
            throw new IllegalArgumentException("--size and --rows both say how much data to generate; give one");
        }
        return new DemoArguments(master, size, topology, directory, help);
    }

    private static String value(String flag, List<String> rest)
    {
        if (rest.isEmpty()) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return rest.remove(0);
    }

    static long positive(String flag, String value)
    {
        try {
            long parsed = Long.parseLong(value.replace("_", ""));
            if (parsed > 0) {
                return parsed;
            }
        }
        catch (NumberFormatException e) {
            // reported below, with the flag
        }
        throw new IllegalArgumentException(flag + " takes a positive number, got '" + value + "'");
    }

    String master()
    {
        return master;
    }

    DemoSize size()
    {
        return size;
    }

    Path topology()
    {
        return topology;
    }

    Optional<Path> directory()
    {
        return directory;
    }

    boolean help()
    {
        return help;
    }
}
