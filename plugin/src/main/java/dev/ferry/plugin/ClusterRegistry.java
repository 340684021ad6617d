package dev.ferry.plugin;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import static java.util.Objects.requireNonNull;

/**
 * The driver's map of where each executor runs. Thread-safe: executors report concurrently through
 * the plugin RPC endpoint.
 */
public final class ClusterRegistry
{
    private final Map<String, ExecutorPlacement> executors = new ConcurrentHashMap<>();

    public void register(ExecutorPlacement placement)
    {
        requireNonNull(placement, "placement is null");
        executors.put(placement.executorId(), placement);
    }

    public void remove(String executorId)
    {
        executors.remove(executorId);
    }

    public Optional<ExecutorPlacement> executor(String executorId)
    {
        return Optional.ofNullable(executors.get(executorId));
    }

    public Map<String, ExecutorPlacement> executors()
    {
        return Map.copyOf(executors);
    }
}
