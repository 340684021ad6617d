package dev.ferry.examples.bench.shuffle;

import dev.ferry.examples.bench.BenchArguments;
import dev.ferry.examples.bench.SparkBenchOptions;

/**
 * Command line of {@code bin/ferry bench shuffle}:
 * {@code [shuffle] [--rows N] [--quick] [--runs N] [--master M] [--query NAME] [--data DIR] [--conf k=v]...}.
 */
public final class ShuffleOptions
        extends SparkBenchOptions
{
    public static final String USAGE = "usage: ShuffleBenchmark [shuffle] [--rows N] [--quick] [--runs N] [--master M] [--query NAME] [--data DIR] [--verbose] [--conf k=v]...";

    public long rows = 10_000_000L;
    public boolean verbose;

    private ShuffleOptions()
    {
        super(3, "local[2]");
    }

    public static ShuffleOptions parse(String[] args)
    {
        ShuffleOptions options = new ShuffleOptions();
        for (int index = 0; index < args.length; index++) {
            String arg = args[index];
            int taken = options.acceptShared(args, index);
            if (taken >= 0) {
                index = taken;
                continue;
            }
            switch (arg) {
                case "shuffle":
                    break;
                case "--quick":
                    options.rows = 200_000L;
                    options.runs = 1;
                    break;
                case "--rows":
                    options.rows = Long.parseLong(BenchArguments.value(args, ++index, arg).replace("_", ""));
                    break;
                case "--verbose":
                    options.verbose = true;
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
        if (options.runs < 1 || options.rows < 1) {
            throw new IllegalArgumentException("--runs and --rows must be positive");
        }
        return options;
    }

}
