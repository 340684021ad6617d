package dev.ferry.shuffle.placement;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import dev.ferry.topology.model.ClusterTopology;

import static java.util.Objects.requireNonNull;

/**
 * This executor JVM's cluster map and place in it, installed by the Ferry executor plugin at
 * executor start (before any task): from {@code spark.ferry.topology.file} when set (a fixed map),
 * else from this node's probes and the driver's merge of every executor's report (a {@link ClusterView}
 * that grows as peers report). The shuffle runtime then routes by topology. Absent (no plugin, or
 * probed routes turned off): every remote fetch goes over TCP.
 */
public final class ExecutorTopology
{
    private static final AtomicReference<Installed> CURRENT = new AtomicReference<>();

    private ExecutorTopology() {}

    public record Known(ClusterTopology cluster, ExecutorPlace place)
    {
        public Known
        {
            requireNonNull(cluster, "cluster is null");
            requireNonNull(place, "place is null");
        }
    }

    private record Installed(ClusterView view, ExecutorPlace place)
    {
        Installed
        {
            requireNonNull(view, "view is null");
            requireNonNull(place, "place is null");
        }
    }

    /** A topology file's map. */
    public static void install(ClusterTopology cluster, ExecutorPlace place)
    {
        CURRENT.set(new Installed(ClusterView.fixed(cluster), place));
    }

    /** A probed map: {@code place} on this executor's own node, which {@code view} always holds. */
    public static void install(ClusterView view, ExecutorPlace place)
    {
        CURRENT.set(new Installed(view, place));
    }

    /** The map as cached now and this executor's place in it. */
    public static Optional<Known> current()
    {
        Installed installed = CURRENT.get();
        return installed == null ? Optional.empty() : Optional.of(new Known(installed.view().cluster(), installed.place()));
    }

    /** The installed view (fixed for a topology file). */
    public static Optional<ClusterView> view()
    {
        Installed installed = CURRENT.get();
        return installed == null ? Optional.empty() : Optional.of(installed.view());
    }

    /** Forgets the installed topology (tests). */
    public static void clear()
    {
        CURRENT.set(null);
    }
}
