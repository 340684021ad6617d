package dev.ferry.examples.demo;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/** {@code bin/ferry demo [--master M] [--rows N] [--topology FILE] [--dir DIR]}. */
final class DemoArguments
{
    static final String DEFAULT_TOPOLOGY = "examples/topologies/dgx-h100-ib-2node.json";
    static final long DEFAULT_ROWS = 500_000;
    static final String USAGE = String.join("\n",
            "usage: bin/ferry demo [--master M] [--rows N] [--topology FILE] [--dir DIR]",
            "  --master M       Spark master (default local[2]; local-cluster[2,1,1024] runs two executor JVMs)",
            "  --rows N         lineitem rows to generate (default " + DEFAULT_ROWS + "; orders get N/4)",
            "  --topology FILE  cluster topology whose route decisions are summarized (default " + DEFAULT_TOPOLOGY + ")",
            "  --dir DIR        where data and outputs go (default: a new temporary directory, deleted at the end)",
            "");

    private final String master;
    private final long rows;
    private final Path topology;
    private final Optional<Path> directory;
    private final boolean help;

    private DemoArguments(String master, long rows, Path topology, Optional<Path> directory, boolean help)
    {
        this.master = requireNonNull(master, "master is null");
        this.rows = rows;
        this.topology = requireNonNull(topology, "topology is null");
        this.directory = requireNonNull(directory, "directory is null");
        this.help = help;
    }

    static DemoArguments parse(String[] args)
    {
        String master = "local[2]";
        long rows = DEFAULT_ROWS;
        Path topology = Path.of(DEFAULT_TOPOLOGY);
        Optional<Path> directory = Optional.empty();
        boolean help = false;
        List<String> rest = new ArrayList<>(List.of(args));
        while (!rest.isEmpty()) {
            String flag = rest.remove(0);
            switch (flag) {
                case "--master":
                    master = value(flag, rest);
                    break;
                case "--rows":
                    rows = positive(flag, value(flag, rest));
                    break;
                case "--topology":
                    topology = Path.of(value(flag, rest));
                    break;
                case "--dir":
                    directory = Optional.of(Path.of(value(flag, rest)));
                    break;
                case "-h":
                case "--help":
                    help = true;
                    break;
                default:
                    throw new IllegalArgumentException("Unknown argument '" + flag + "'");
            }
        }
        return new DemoArguments(master, rows, topology, directory, help);
    }

    private static String value(String flag, List<String> rest)
    {
        if (rest.isEmpty()) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return rest.remove(0);
    }

    private static long positive(String flag, String value)
    {
        try {
            long parsed = Long.parseLong(value.replace("_", ""));
            if (parsed > 0) {
                return parsed;
            }
        }
        catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(flag + " takes a positive number, got '" + value + "'");
    }

    String master()
    {
        return master;
    }

    long rows()
    {
        return rows;
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
