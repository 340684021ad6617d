package dev.ferry.gds.route;

/** The topology policy's route for reading one file into one device: GDS, BOUNCE or HOST, with the reason. */
@FunctionalInterface
public interface FileRouteAdvisor
{
    RouteChoice advise(String file, int device);
}
