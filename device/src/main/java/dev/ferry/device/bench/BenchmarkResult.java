package dev.ferry.device.bench;

import static java.util.Objects.requireNonNull;

/** One measured route: bandwidth and its fraction of this machine's memcpy bandwidth in the same run. */
public final class BenchmarkResult
{
    private final String backend;
    private final String route;
    private final double gigabytesPerSecond;
    private final double fractionOfMemcpy;

    public BenchmarkResult(String backend, String route, double gigabytesPerSecond, double fractionOfMemcpy)
    {
        this.backend = requireNonNull(backend, "backend is null");
        this.route = requireNonNull(route, "route is null");
        this.gigabytesPerSecond = gigabytesPerSecond;
        this.fractionOfMemcpy = fractionOfMemcpy;
    }

    public String backend()
    {
        return backend;
    }

    public String route()
    {
        return route;
    }

    public double gigabytesPerSecond()
    {
        return gigabytesPerSecond;
    }

    public double fractionOfMemcpy()
    {
        return fractionOfMemcpy;
    }

    @Override
    public String toString()
    {
        return String.format("| %-9s | %-22s | %8.2f | %5.2f |", backend, route, gigabytesPerSecond, fractionOfMemcpy);
    }
}
