package dev.ferry.shuffle.transport.metrics;

import java.io.Serializable;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import dev.ferry.topology.route.Route;

import static java.util.Objects.requireNonNull;

/**
 * Bytes and blocks moved per route, frozen: what one executor reports and what the driver adds
 * up. {@link #merge} is associative and commutative, so executors' totals can be combined in any
 * order (as a Spark accumulator does). Immutable.
 */
public final class RouteTotals
        implements Serializable
{
    private static final long serialVersionUID = 1L;
    private static final RouteTotals EMPTY = new RouteTotals(new EnumMap<>(Route.class), new EnumMap<>(Route.class));

    private final EnumMap<Route, Long> bytes;
    private final EnumMap<Route, Long> blocks;

    private RouteTotals(EnumMap<Route, Long> bytes, EnumMap<Route, Long> blocks)
    {
        this.bytes = bytes;
        this.blocks = blocks;
    }

    public static RouteTotals empty()
    {
        return EMPTY;
    }

    static RouteTotals of(Map<Route, Long> bytes, Map<Route, Long> blocks)
    {
        EnumMap<Route, Long> byteCopy = new EnumMap<>(Route.class);
        EnumMap<Route, Long> blockCopy = new EnumMap<>(Route.class);
        for (Route route : Route.values()) {
            long routeBytes = bytes.getOrDefault(route, 0L);
            long routeBlocks = blocks.getOrDefault(route, 0L);
            if (routeBytes < 0 || routeBlocks < 0) {
                throw new IllegalArgumentException("Negative totals for " + route + ": " + routeBytes + " bytes, " + routeBlocks + " blocks");
            }
            if (routeBytes != 0 || routeBlocks != 0) {
                byteCopy.put(route, routeBytes);
                blockCopy.put(route, routeBlocks);
            }
        }
        return new RouteTotals(byteCopy, blockCopy);
    }

    public long bytes(Route route)
    {
        return bytes.getOrDefault(requireNonNull(route, "route is null"), 0L);
    }

    public long blocks(Route route)
    {
        return blocks.getOrDefault(requireNonNull(route, "route is null"), 0L);
    }

    /** Routes that carried at least one block, in enum order. */
    public List<Route> usedRoutes()
    {
        return new ArrayList<>(blocks.keySet());
    }

    public RouteTotals merge(RouteTotals other)
    {
        requireNonNull(other, "other is null");
        EnumMap<Route, Long> mergedBytes = new EnumMap<>(bytes);
        EnumMap<Route, Long> mergedBlocks = new EnumMap<>(blocks);
        other.bytes.forEach((route, value) -> mergedBytes.merge(route, value, Math::addExact));
        other.blocks.forEach((route, value) -> mergedBlocks.merge(route, value, Math::addExact));
        return new RouteTotals(mergedBytes, mergedBlocks);
    }

    /** A compact wire form (for heartbeats or task metrics): int count, then per used route its name (short length + ASCII), long bytes, long blocks. */
    public byte[] toBytes()
    {
        List<Route> used = usedRoutes();
        int size = 4;
        for (Route route : used) {
            size += 2 + route.name().length() + 16;
        }
        ByteBuffer buffer = ByteBuffer.allocate(size);
        buffer.putInt(used.size());
        for (Route route : used) {
            // Routes travel by name, so adding a route to the enum never shifts an old executor's numbers.
            byte[] name = route.name().getBytes(StandardCharsets.US_ASCII);
            buffer.putShort((short) name.length).put(name);
            buffer.putLong(bytes(route)).putLong(blocks(route));
        }
        return buffer.array();
    }

    public static RouteTotals fromBytes(byte[] encoded)
    {
        ByteBuffer buffer = ByteBuffer.wrap(requireNonNull(encoded, "encoded is null"));
        try {
            int count = buffer.getInt();
            if (count < 0 || count > Route.values().length) {
                throw new IllegalArgumentException("route count " + count);
            }
            EnumMap<Route, Long> bytes = new EnumMap<>(Route.class);
            EnumMap<Route, Long> blocks = new EnumMap<>(Route.class);
            for (int i = 0; i < count; i++) {
                byte[] name = new byte[buffer.getShort()];
                buffer.get(name);
                Route route = Route.valueOf(new String(name, StandardCharsets.US_ASCII));
                bytes.put(route, buffer.getLong());
                blocks.put(route, buffer.getLong());
            }
            if (buffer.hasRemaining()) {
                throw new IllegalArgumentException(buffer.remaining() + " trailing bytes");
            }
            return of(bytes, blocks);
        }
        catch (RuntimeException e) {
            throw new IllegalArgumentException("Malformed route totals: " + e.getMessage(), e);
        }
    }

    @Override
    public boolean equals(Object other)
    {
        return other instanceof RouteTotals that && bytes.equals(that.bytes) && blocks.equals(that.blocks);
    }

    @Override
    public int hashCode()
    {
        return 31 * bytes.hashCode() + blocks.hashCode();
    }

    @Override
    public String toString()
    {
        StringBuilder text = new StringBuilder();
        for (Route route : usedRoutes()) {
            if (text.length() > 0) {
                text.append(", ");
            }
            text.append(route).append(": ").append(bytes(route)).append(" bytes in ").append(blocks(route)).append(" block(s)");
        }
        return text.length() == 0 ? "no transfers" : text.toString();
    }
}
