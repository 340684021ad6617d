package dev.ferry.examples.bench;

import java.util.Map;

/** Command-line pieces every {@code bin/ferry bench} benchmark parses the same way. */
public final class BenchArguments
{
    private BenchArguments() {}

    /** The value following {@code flag} at {@code index}, or a clear error when the line ends. */
    public static String value(String[] args, int index, String flag)
    {
        if (index >= args.length) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return args[index];
    }

    /** Adds a {@code --conf key=value} pair to {@code conf}. */
    public static void putConf(String pair, Map<String, String> conf)
    {
        int equals = pair.indexOf('=');
        if (equals <= 0) {
            throw new IllegalArgumentException("--conf wants key=value, got " + pair);
        }
        conf.put(pair.substring(0, equals), pair.substring(equals + 1));
    }
}
