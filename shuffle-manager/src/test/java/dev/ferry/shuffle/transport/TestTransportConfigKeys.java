package dev.ferry.shuffle.transport;

import java.nio.file.Paths;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import dev.ferry.conf.ConfigKey;
import dev.ferry.conf.MapConfigSource;
import dev.ferry.shuffle.transport.auth.AuthBootstrap;
import dev.ferry.shuffle.transport.rdma.verbs.RemoteReader;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsSettings;
import dev.ferry.shuffle.transport.shm.ShmNames;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TestTransportConfigKeys
{
    @Test
    void keysAreUniqueDocumentedAndInTheTransportNamespace()
    {
        TransportConfigKeys keys = new TransportConfigKeys();
        assertEquals("Transports", keys.section());
        Set<String> names = new HashSet<>();
        for (ConfigKey<?> key : keys.keys()) {
            assertTrue(key.name().startsWith("spark.ferry.transport."), key.name());
            assertTrue(names.add(key.name()), "duplicate " + key.name());
            assertFalse(key.doc().isBlank(), key.name());
        }
    }

    @Test
    void verbsSettingsComeFromTheKeysAndRefuseRegionsAboveTheIntLimit()
    {
        VerbsSettings defaults = VerbsSettings.defaults();
        assertEquals(Integer.MAX_VALUE, defaults.maxRegionBytes());
        assertEquals(10_000, defaults.connectTimeout().toMillis());
        VerbsSettings custom = VerbsSettings.from(new MapConfigSource(Map.of("spark.ferry.transport.rdma.queueDepth", "32",
                "spark.ferry.transport.rdma.maxRegionBytes", "64m")));
        assertEquals(32, custom.queueDepth());
        assertEquals(64 << 20, custom.maxRegionBytes());
        IllegalArgumentException tooBig = assertThrows(IllegalArgumentException.class,
                () -> VerbsSettings.from(new MapConfigSource(Map.of("spark.ferry.transport.rdma.maxRegionBytes", "2g"))));
        assertTrue(tooBig.getMessage().contains("spark.ferry.transport.rdma.maxRegionBytes"), tooBig.getMessage());
    }

    @Test
    void factoriesReadTheirKeys()
            throws Exception
    {
        assertEquals(Duration.ofSeconds(30), AuthBootstrap.timeout(MapConfigSource.empty()));
        assertEquals(Duration.ofMillis(1500), AuthBootstrap.timeout(new MapConfigSource(Map.of("spark.ferry.transport.auth.timeoutMillis", "1500"))));
        assertThrows(IllegalArgumentException.class, () -> AuthBootstrap.timeout(new MapConfigSource(Map.of("spark.ferry.transport.auth.timeoutMillis", "0"))));
        assertThrows(IllegalArgumentException.class, () -> RemoteReader.fromConfig(null, new MapConfigSource(Map.of("spark.ferry.transport.rdma.readChunkBytes", "4g"))));
        assertEquals(Paths.get(System.getProperty("java.io.tmpdir")), ShmNames.directory(new MapConfigSource(Map.of("spark.ferry.transport.shm.dir", "/nonexistent-ferry-dir"))));
    }
}
