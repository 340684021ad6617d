package dev.ferry.conf;

import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConfigKeyTest
{
    enum Mode { AUTO, OFF }

    @Test
    void defaultsApplyWhenUnset()
    {
        ConfigKey<Long> limit = ConfigKey.bytes("spark.ferry.test.limit", "512m", "a limit");
        assertEquals(512L << 20, limit.get(MapConfigSource.empty()));
        assertEquals(4L << 30, limit.get(new MapConfigSource(Map.of("spark.ferry.test.limit", "4g"))));
        assertEquals(100L, limit.parse("100"));
    }

    @Test
    void malformedValuesNameTheKey()
    {
        ConfigKey<Mode> mode = ConfigKey.choice("spark.ferry.test.mode", Mode.class, Mode.AUTO, "a mode");
        assertEquals(Mode.OFF, mode.parse("Off"));
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class, () -> mode.parse("sometimes"));
        assertTrue(error.getMessage().contains("spark.ferry.test.mode"), error.getMessage());
        assertTrue(error.getMessage().contains("auto|off"), error.getMessage());
        ConfigKey<Boolean> flag = ConfigKey.bool("spark.ferry.test.flag", true, "a flag");
        assertThrows(IllegalArgumentException.class, () -> flag.parse("maybe"));
        assertThrows(IllegalArgumentException.class, () -> ConfigKey.bytes("spark.ferry.test.size", "1m", "x").parse("-5"));
    }

    @Test
    void keysOutsideTheNamespaceAreRefused()
    {
        assertThrows(IllegalArgumentException.class, () -> ConfigKey.string("spark.other", "x", "doc"));
    }
}
