package dev.ferry.shuffle.transport.metrics;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

import dev.ferry.topology.route.Route;

import static java.util.Objects.requireNonNull;

/** Live per-route byte and block counters of one executor; {@link #snapshot()} freezes them for reporting. Thread-safe. */
public final class RouteCounters
{
    private final Map<Route, LongAdder> bytes = new EnumMap<>(Route.class);
    private final Map<Route, LongAdder> blocks = new EnumMap<>(Route.class);

    public RouteCounters()
    {
        for (Route route : Route.values()) {
            bytes.put(route, new LongAdder());
            blocks.put(route, new LongAdder());
        }
    }

    /** One block of {@code byteCount} bytes moved over {@code route}. */
    public void recordBlock(Route route, long byteCount)
    {
        requireNonNull(route, "route is null");
        if (byteCount < 0) {
            throw new IllegalArgumentException("byte count must not be negative: " + byteCount);
        }
        bytes.get(route).add(byteCount);
        blocks.get(route).increment();
    }

    public long bytes(Route route)
    {
        return bytes.get(route).sum();
    }

    public long blocks(Route route)
    {
        return blocks.get(route).sum();
    }

    public RouteTotals snapshot()
    {
        Map<Route, Long> byteValues = new EnumMap<>(Route.class);
        Map<Route, Long> blockValues = new EnumMap<>(Route.class);
        for (Route route : Route.values()) {
            // Blocks first, then bytes: a concurrent record is then never seen as bytes without a block.
            blockValues.put(route, blocks.get(route).sum());
            byteValues.put(route, bytes.get(route).sum());
        }
        return RouteTotals.of(byteValues, blockValues);
    }
}
