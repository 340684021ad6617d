package dev.ferry.shuffle.transport.routing;

import dev.ferry.topology.route.Route;

import static java.util.Objects.requireNonNull;

/**
 * The route to one peer: what the topology policy decided, what actually carries the bytes (the
 * same route, unless its data path is not available here, in which case the nearest wired one),
 * and why, in one line for the executor log.
 */
public record PeerRoute(Route decided, Route carrier, String reason)
{
    public PeerRoute
    {
        requireNonNull(decided, "decided is null");
        requireNonNull(carrier, "carrier is null");
        requireNonNull(reason, "reason is null");
    }
}
