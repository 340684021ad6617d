package dev.ferry.gds.route;

import dev.ferry.gds.io.IoRoute;

import static java.util.Objects.requireNonNull;

/**
 * The route one file is read on and why.
 *
 * @param fallback true when this is not the route the policy preferred
 */
public record RouteChoice(IoRoute route, String reason, boolean fallback)
{
    public RouteChoice
    {
        requireNonNull(route, "route is null");
        requireNonNull(reason, "reason is null");
    }
}
