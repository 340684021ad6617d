package dev.ferry.plugin;

import java.io.Serializable;

/** An executor's question to the driver: which executors left after {@code sinceVersion}? Answered with {@link Departures}. */
public record DeparturesRequest(long sinceVersion)
        implements Serializable
{
    private static final long serialVersionUID = 1L;

    public DeparturesRequest
    {
        if (sinceVersion < 0) {
            throw new IllegalArgumentException("sinceVersion must not be negative: " + sinceVersion);
        }
    }
}
