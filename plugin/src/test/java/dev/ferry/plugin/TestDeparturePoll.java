package dev.ferry.plugin;

import dev.ferry.conf.MapConfigSource;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The executor's departure poll interval comes from spark.ferry.executor.departurePollMillis and must be positive. */
class TestDeparturePoll
{
    @Test
    void intervalIsConfigurableAndMustBePositive()
    {
        assertEquals(Duration.ofSeconds(2), FerryExecutorPlugin.departurePoll(new MapConfigSource(Map.of())));
        assertEquals(Duration.ofMillis(250), FerryExecutorPlugin.departurePoll(new MapConfigSource(Map.of("spark.ferry.executor.departurePollMillis", "250"))));
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
                () -> FerryExecutorPlugin.departurePoll(new MapConfigSource(Map.of("spark.ferry.executor.departurePollMillis", "0"))));
        assertTrue(zero.getMessage().contains("spark.ferry.executor.departurePollMillis"), zero.getMessage());
    }
}
