package dev.ferry.conf;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConfigCheckTest
{
    enum Codec { ZSTD, LZ4, NONE }

    private static final ConfigKeySet SET = new ConfigKeySet()
    {
        @Override
        public String section()
        {
            return "Test";
        }

        @Override
        public List<ConfigKey<?>> keys()
        {
            return List.of(
                    ConfigKey.choice("spark.ferry.shuffle.compression.codec", Codec.class, Codec.ZSTD, "codec"),
                    ConfigKey.bytes("spark.ferry.shuffle.host.memoryBytes", "512m", "size"),
                    ConfigKey.bool("spark.ferry.enabled", true, "on"),
                    ConfigKey.string("spark.ferry.placement", "", "checked", value -> {
                        if (!value.isEmpty() && !value.contains("=")) {
                            throw new IllegalArgumentException("placement '" + value + "' is not <executorId>=<node>[:<gpu>]");
                        }
                    }));
        }
    };

    @Test
    void unknownKeyIsWarnedWithTheNearestKnownOne()
    {
        List<String> warnings = ConfigCheck.check(Map.of("spark.ferry.shuffle.compresion.codec", "lz4", "spark.executor.memory", "4g"), List.of(SET));
        assertEquals(List.of("Unknown setting spark.ferry.shuffle.compresion.codec is ignored; did you mean spark.ferry.shuffle.compression.codec?"), warnings);
    }

    @Test
    void unknownKeyFarFromEveryKnownOneGetsNoGuess()
    {
        List<String> warnings = ConfigCheck.check(Map.of("spark.ferry.something.else.entirely", "1"), List.of(SET));
        assertEquals(List.of("Unknown setting spark.ferry.something.else.entirely is ignored (bin/ferry conf lists every key)"), warnings);
    }

    @Test
    void everyBadValueIsListedWithKeyValueAndWhatIsAllowed()
    {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> ConfigCheck.check(
                Map.of("spark.ferry.shuffle.compression.codec", "gzip", "spark.ferry.enabled", "maybe", "spark.ferry.shuffle.host.memoryBytes", "lots",
                        "spark.ferry.placement", "dgx-a"), List.of(SET)));
        String message = refused.getMessage();
        assertTrue(message.startsWith("Ferry refused 4 settings at start: "), message);
        assertTrue(message.contains("spark.ferry.shuffle.compression.codec must be one of zstd|lz4|none, got 'gzip'"), message);
        assertTrue(message.contains("spark.ferry.enabled must be true or false, got 'maybe'"), message);
        assertTrue(message.contains("spark.ferry.shuffle.host.memoryBytes must be a size such as 512m or 4g, got 'lots'"), message);
        assertTrue(message.contains("spark.ferry.placement='dgx-a': placement 'dgx-a' is not <executorId>=<node>[:<gpu>]"), message);
    }

    @Test
    void goodValuesPass()
    {
        assertEquals(List.of(), ConfigCheck.check(Map.of("spark.ferry.shuffle.compression.codec", "LZ4", "spark.ferry.placement", "1=dgx-a:GPU0"), List.of(SET)));
    }

    @Test
    void editDistance()
    {
        assertEquals(0, EditDistance.between("codec", "codec"));
        assertEquals(1, EditDistance.between("compresion", "compression"));
        assertEquals(3, EditDistance.between("kitten", "sitting"));
    }
}
