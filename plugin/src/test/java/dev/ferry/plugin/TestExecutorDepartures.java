package dev.ferry.plugin;

import java.util.List;

import org.apache.spark.scheduler.SparkListenerExecutorRemoved;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TestExecutorDepartures
{
    @Test
    void anExecutorThatLeftIsDroppedFromTheClusterMap()
    {
        ClusterRegistry registry = new ClusterRegistry();
        registry.register(new ExecutorPlacement("1", "host-a", List.of("0"), "{}", "node a"));
        registry.register(new ExecutorPlacement("2", "host-b", List.of(), "{}", "node b"));
        ExecutorDepartures departures = new ExecutorDepartures(registry);

        departures.onExecutorRemoved(new SparkListenerExecutorRemoved(1L, "1", "Executor lost"));
        assertTrue(registry.executor("1").isEmpty());
        assertEquals(List.of("2"), List.copyOf(registry.executors().keySet()));
        // An executor that never reported (or left twice) is not an error.
        departures.onExecutorRemoved(new SparkListenerExecutorRemoved(2L, "7", "killed"));
        assertEquals(1, registry.executors().size());
    }
}
