package dev.ferry.plugin;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The driver's record of executors that left, in the order they left. Executors cannot hear the
 * driver's listener bus (Spark's plugin API only lets them send to and ask the driver), so each
 * executor asks for the departures after the last version it saw ({@link Departures#version()}).
 * One entry per executor id for the application's lifetime: a few bytes each. Thread-safe.
 */
final class DepartureLog
{
    private final List<String> departed = new ArrayList<>();
    private final Set<String> seen = new HashSet<>();

    /** Records a departure; a second removal event for the same executor adds nothing. */
    synchronized void record(String executorId)
    {
        if (seen.add(executorId)) {
            departed.add(executorId);
        }
    }

    /** The departures after {@code version} (0: all of them), and the version to ask from next. */
    synchronized Departures since(long version)
    {
        if (version < 0 || version > departed.size()) {
            throw new IllegalArgumentException("Departure version " + version + " is outside 0.." + departed.size());
        }
        return new Departures(departed.size(), List.copyOf(departed.subList((int) version, departed.size())));
    }
}
