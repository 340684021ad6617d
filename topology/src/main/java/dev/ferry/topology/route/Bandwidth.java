package dev.ferry.topology.route;

import java.util.Locale;

import static java.util.Objects.requireNonNull;

/**
 * An estimated bandwidth and where the figure came from.
 *
 * @param gbps gigabytes per second
 * @param source e.g. {@code NCCL SM90 NVLink 20.6 GB/s x 18 links}
 */
public record Bandwidth(double gbps, String source)
{
    public Bandwidth
    {
        requireNonNull(source, "source is null");
        if (!(gbps > 0)) {
            throw new IllegalArgumentException("Bandwidth must be positive, got " + gbps + " (" + source + ")");
        }
    }

    /** The narrower of two, keeping its source. */
    public Bandwidth min(Bandwidth other)
    {
        return other.gbps < gbps ? other : this;
    }

    public static String format(double gbps)
    {
        return String.format(Locale.ROOT, gbps == Math.rint(gbps) ? "%.0f" : "%.1f", gbps);
    }
}
