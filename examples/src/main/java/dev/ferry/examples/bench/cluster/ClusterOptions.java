package dev.ferry.examples.bench.cluster;

import dev.ferry.examples.bench.BenchArguments;
import dev.ferry.examples.bench.SparkBenchOptions;

/**
 * The driver's command line for {@code bin/ferry bench cluster}:
 * {@code [--rows N] [--runs N] [--queries all|shuffle|demo] [--query NAME] [--data DIR] [--conf k=v]...}.
 * The cluster's own options ({@code --nodes}, {@code --rate}, ...) are taken by {@code bin/ferry}
 * and {@code scripts/netns-cluster.sh}; the master is the one {@code spark-submit} was given.
 * {@code --runs 0} times the runs that check the results (no separate warm-up), for tests.
 */
public final class ClusterOptions
        extends SparkBenchOptions
{
    public static final String USAGE = "usage: ClusterBenchmark [--rows N] [--runs N] [--queries all|shuffle|demo] [--query NAME] [--data DIR] [--conf k=v]...";

    public long rows = 2_000_000L;
    public String queries = "all";

    private ClusterOptions()
    {
        super(1, "");
    }

    public static ClusterOptions parse(String[] args)
    {
        ClusterOptions options = new ClusterOptions();
        for (int index = 0; index < args.length; index++) {
            String arg = args[index];
            if (arg.equals("--master")) {
                throw new IllegalArgumentException("--master is the cluster's (given to spark-submit); " + USAGE);
            }
            int taken = options.acceptShared(args, index);
            if (taken >= 0) {
                index = taken;
                continue;
            }
            switch (arg) {
                case "--rows":
                    options.rows = Long.parseLong(BenchArguments.value(args, ++index, arg).replace("_", ""));
                    break;
                case "--queries":
                    options.queries = BenchArguments.value(args, ++index, arg);
                    if (!options.queries.equals("all") && !options.queries.equals("shuffle") && !options.queries.equals("demo")) {
                        throw new IllegalArgumentException("--queries takes all, shuffle or demo, not " + options.queries);
                    }
                    break;
                case "-h":
                case "--help":
                    System.out.println(USAGE);
                    System.exit(0);
                    break;
                default:
                    throw new IllegalArgumentException("Unknown argument " + arg + "; " + USAGE);
            }
        }
        if (options.runs < 0 || options.rows < 1) {
            throw new IllegalArgumentException("--runs must be 0 or more and --rows positive");
        }
        return options;
    }
}
