package dev.ferry.device.host;

import dev.ferry.device.CopyRoute;

/** Optionally stretches a finished copy to a link's bandwidth (the simulated backend's shaping). */
@FunctionalInterface
public interface CopyShaper
{
    CopyShaper NONE = (route, bytes, startNanos) -> {};

    void pace(CopyRoute route, long bytes, long startNanos);
}
