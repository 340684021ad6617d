package dev.ferry.shuffle.placement;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import dev.ferry.topology.model.ClusterTopology;

import static java.util.Objects.requireNonNull;

/**
 * This executor JVM's cluster map and place in it, installed by the Ferry executor plugin at
 * executor start (before any task) when {@code spark.ferry.topology.file} is set; the shuffle
 * runtime then routes by topology. Absent: every remote fetch goes over TCP.
 */
public final class ExecutorTopology
{
    private static final AtomicReference<Known> CURRENT = new AtomicReference<>();

    private ExecutorTopology() {}

    public record Known(ClusterTopology cluster, ExecutorPlace place)
    {
        public Known
        {
            requireNonNull(cluster, "cluster is null");
            requireNonNull(place, "place is null");
        }
    }

    public static void install(ClusterTopology cluster, ExecutorPlace place)
    {
        CURRENT.set(new Known(cluster, place));
    }

    public static Optional<Known> current()
    {
        return Optional.ofNullable(CURRENT.get());
    }

    /** Forgets the installed topology (tests). */
    public static void clear()
    {
        CURRENT.set(null);
    }
}
