package dev.ferry.topology.route;

import static java.util.Objects.requireNonNull;

/**
 * The route that would have been chosen next, and why it was not.
 *
 * @param route the alternative
 * @param whyNot e.g. {@code path SYS is beyond spark.ferry.route.p2pLevel=PXB}
 */
public record RunnerUp(Route route, String whyNot)
{
    public RunnerUp
    {
        requireNonNull(route, "route is null");
        requireNonNull(whyNot, "whyNot is null");
    }
}
