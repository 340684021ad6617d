package dev.ferry.shuffle.transport.metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import dev.ferry.topology.route.Route;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.util.Objects.requireNonNull;

/**
 * The route chosen for each peer, with its reason, stated once in the executor log: the first
 * decision for a peer is logged, repeats of the same route are not, and a different route later
 * (a fallback, say GPUDIRECT_RDMA to RDMA_HOST_STAGED after a registration failure) is logged as
 * a change and counted. Thread-safe.
 */
public final class PeerRouteLog
{
    private static final Logger log = LoggerFactory.getLogger(PeerRouteLog.class);

    /** One peer's current route and why. */
    public record PeerRoute(String peer, Route route, String reason)
    {
        public PeerRoute
        {
            requireNonNull(peer, "peer is null");
            requireNonNull(route, "route is null");
            requireNonNull(reason, "reason is null");
        }
    }

    private final Map<String, PeerRoute> byPeer = new ConcurrentHashMap<>();
    private final AtomicLong changes = new AtomicLong();
    private final Consumer<String> sink;

    public PeerRouteLog()
    {
        this(log::info);
    }

    /** With a custom sink for the log lines (tests). */
    public PeerRouteLog(Consumer<String> sink)
    {
        this.sink = requireNonNull(sink, "sink is null");
    }

    /** Records the route for {@code peer}; returns true when this was logged (first decision, or a change). */
    public boolean record(String peer, Route route, String reason)
    {
        PeerRoute next = new PeerRoute(peer, route, reason);
        PeerRoute[] previous = new PeerRoute[1];
        boolean[] logged = new boolean[1];
        byPeer.compute(peer, (key, current) -> {
            previous[0] = current;
            if (current != null && current.route() == route) {
                return current;
            }
            logged[0] = true;
            return next;
        });
        if (!logged[0]) {
            return false;
        }
        if (previous[0] == null) {
            sink.accept("Ferry route to " + peer + ": " + route + " (" + reason + ")");
        }
        else {
            changes.incrementAndGet();
            sink.accept("Ferry route to " + peer + " changed from " + previous[0].route() + " to " + route + " (" + reason + ")");
        }
        return true;
    }

    public List<PeerRoute> routes()
    {
        return new ArrayList<>(byPeer.values());
    }

    /** How often a peer's route changed after its first decision. */
    public long changes()
    {
        return changes.get();
    }
}
