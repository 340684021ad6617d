package dev.ferry.examples.bench.transport;

import dev.ferry.examples.bench.BenchArguments;

/** Command line of {@code bin/ferry bench transport}: {@code [transport] [--mb N] [--quick] [--runs N]}. */
public final class TransportOptions
{
    public static final String USAGE = "usage: TransportBenchmark [transport] [--mb N] [--quick] [--runs N]";

    /** Megabytes moved per fetch (in eight blocks). */
    public int megabytes = 256;
    /** Timed fetches per route (after one warm-up); the best is reported. */
    public int runs = 5;

    public static TransportOptions parse(String[] args)
    {
        TransportOptions options = new TransportOptions();
        for (int index = 0; index < args.length; index++) {
            String arg = args[index];
            switch (arg) {
                case "transport" -> {
                }
                case "--quick" -> {
                    options.megabytes = 32;
                    options.runs = 2;
                }
                case "--mb" -> options.megabytes = Integer.parseInt(BenchArguments.value(args, ++index, arg));
                case "--runs" -> options.runs = Integer.parseInt(BenchArguments.value(args, ++index, arg));
                case "-h", "--help" -> {
                    System.out.println(USAGE);
                    System.exit(0);
                }
                default -> throw new IllegalArgumentException("Unknown argument " + arg + "; " + USAGE);
            }
        }
        if (options.runs < 1 || options.megabytes < 8 || options.megabytes > 1024) {
            throw new IllegalArgumentException("--runs must be positive and --mb between 8 and 1024; " + USAGE);
        }
        return options;
    }

}
