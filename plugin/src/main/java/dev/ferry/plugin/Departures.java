package dev.ferry.plugin;

import java.io.Serializable;
import java.util.List;

import static java.util.Objects.requireNonNull;

/** The driver's answer to {@link DeparturesRequest}: executors that left since the version asked for, and the version to ask from next. */
public record Departures(long version, List<String> executorIds)
        implements Serializable
{
    private static final long serialVersionUID = 1L;

    public Departures
    {
        requireNonNull(executorIds, "executorIds is null");
        executorIds = List.copyOf(executorIds);
    }
}
