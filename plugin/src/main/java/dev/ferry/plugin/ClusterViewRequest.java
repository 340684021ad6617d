package dev.ferry.plugin;

import java.io.Serializable;

/**
 * An executor's question to the driver: the probed cluster view (one node per host). Answered with
 * {@link ClusterViewAnswer#toWire()}, in JDK types, as {@link Departures} is.
 */
public record ClusterViewRequest(String executorId)
        implements Serializable
{
    private static final long serialVersionUID = 1L;

    public ClusterViewRequest
    {
        if (executorId == null || executorId.isEmpty()) {
            throw new IllegalArgumentException("executorId is empty");
        }
    }
}
