package dev.ferry.plugin;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The driver's answer to {@link DeparturesRequest}: executors that left since the version asked for, and the version to ask from next.
 * <p>It travels as {@link #toWire() a String array}, not as this class: the executor's RPC layer
 * deserializes replies with Spark's own class loader, which cannot see a plugin jar added with
 * {@code --jars}, and an unknown class there fails the driver connection and kills the executor.
 */
public record Departures(long version, List<String> executorIds)
{
    public Departures
    {
        if (version < 0) {
            throw new IllegalArgumentException("version must not be negative: " + version);
        }
        requireNonNull(executorIds, "executorIds is null");
        executorIds = List.copyOf(executorIds);
    }

    /** JDK types only: the version, then the executor ids. */
    public String[] toWire()
    {
        String[] wire = new String[executorIds.size() + 1];
        wire[0] = Long.toString(version);
        for (int i = 0; i < executorIds.size(); i++) {
            wire[i + 1] = executorIds.get(i);
        }
        return wire;
    }

    /** Reads {@link #toWire()}'s form back; anything else is a protocol error naming what arrived. */
    public static Departures fromWire(Object wire)
    {
        if (!(wire instanceof String[] strings) || strings.length == 0) {
            throw new IllegalStateException("The Ferry driver plugin answered a departures request with "
                    + (wire == null ? "null" : wire instanceof String[] ? "an empty array" : wire.getClass().getName()));
        }
        long version;
        try {
            version = Long.parseLong(strings[0]);
        }
        catch (NumberFormatException e) {
            throw new IllegalStateException("The Ferry driver plugin's departures answer starts with '" + strings[0] + "', not a version", e);
        }
        return new Departures(version, new ArrayList<>(Arrays.asList(strings).subList(1, strings.length)));
    }
}
