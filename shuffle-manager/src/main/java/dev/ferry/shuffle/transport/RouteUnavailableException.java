package dev.ferry.shuffle.transport;

import java.io.IOException;
import java.util.Optional;

import dev.ferry.topology.route.Route;

import static java.util.Objects.requireNonNull;

/**
 * A route's mechanism does not work between this reader and a peer (an IPC handle it cannot open,
 * GPU memory the peer's NIC refused to register, shared memory it cannot see): nothing is wrong
 * with the blocks, so the fetch is not a fetch failure. The routing transport falls back for that
 * peer to the route policy's next choice and fetches the request again over it, once per refused
 * route ({@link dev.ferry.topology.route.RoutePolicy#fallbackAfter}).
 */
public final class RouteUnavailableException
        extends IOException
{
    private final Route route;
    private final String reason;

    /** {@code reason}: why {@code route} cannot be used with this peer, for the route log. */
    public RouteUnavailableException(Route route, String reason, Throwable cause)
    {
        super(requireNonNull(route, "route is null") + " cannot be used: " + requireNonNull(reason, "reason is null"), cause);
        this.route = route;
        this.reason = reason;
    }

    public Route route()
    {
        return route;
    }

    public String reason()
    {
        return reason;
    }

    /** The refusal {@code failure} was caused by, if any (the stream transport wraps what a route's receiver throws). */
    public static Optional<RouteUnavailableException> in(Throwable failure)
    {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof RouteUnavailableException refusal) {
                return Optional.of(refusal);
            }
        }
        return Optional.empty();
    }
}
