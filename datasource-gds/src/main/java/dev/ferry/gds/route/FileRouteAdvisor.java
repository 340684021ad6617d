package dev.ferry.gds.route;

import dev.ferry.topology.route.FileConsumer;

/** The topology policy's route for reading one file for {@code consumer} on a node whose batch would land on {@code device}: GDS, BOUNCE or HOST, with the reason. */
@FunctionalInterface
public interface FileRouteAdvisor
{
    RouteChoice advise(String file, int device, FileConsumer consumer);
}
