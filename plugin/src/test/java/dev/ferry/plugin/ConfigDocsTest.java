package dev.ferry.plugin;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import dev.ferry.conf.ConfigDocs;
import dev.ferry.conf.ConfigKey;
import dev.ferry.conf.ConfigKeySet;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** docs/configuration.md is generated from the key definitions and must not drift from them. */
class ConfigDocsTest
{
    @Test
    void everyModuleRegistersItsKeysOnce()
    {
        boolean sawPlugin = false;
        for (ConfigKeySet set : ConfigDocs.allSets()) {
            assertFalse(set.keys().isEmpty(), set.section());
            for (ConfigKey<?> key : set.keys()) {
                assertFalse(key.doc().isBlank(), key.name() + " has no documentation");
            }
            sawPlugin |= set instanceof PluginConfigKeys;
        }
        assertTrue(sawPlugin);
    }

    @Test
    void documentationMatchesTheDefinitions()
            throws IOException
    {
        Path docs = Path.of(System.getProperty("ferry.repo.dir", "..")).resolve("docs/configuration.md");
        assertEquals(ConfigDocs.page(), Files.readString(docs, StandardCharsets.UTF_8), "docs/configuration.md is stale: run bin/ferry conf --write docs/configuration.md");
    }
}
