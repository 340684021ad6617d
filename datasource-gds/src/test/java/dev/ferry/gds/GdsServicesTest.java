package dev.ferry.gds;

import dev.ferry.conf.ConfigKey;
import dev.ferry.conf.ConfigKeySet;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GdsServicesTest
{
    @Test
    void configKeysAreRegisteredOnceUnderTheirSection()
    {
        List<ConfigKeySet> sets = ServiceLoader.load(ConfigKeySet.class).stream().map(ServiceLoader.Provider::get)
                .filter(set -> set instanceof GdsConfigKeys).collect(Collectors.toList());
        assertEquals(1, sets.size());
        assertEquals("gds data source", sets.get(0).section());
        Set<String> names = new HashSet<>();
        for (ConfigKey<?> key : sets.get(0).keys()) {
            assertTrue(key.name().startsWith("spark.ferry.gds."), key.name());
            assertTrue(names.add(key.name()), "duplicate " + key.name());
            assertTrue(!key.doc().isBlank(), key.name());
        }
        assertEquals(GdsRouteSetting.AUTO, GdsConfigKeys.ROUTE.parse("auto"));
    }

    @Test
    void gdsIsARegisteredDataSource()
    {
        Set<String> names = ServiceLoader.load(DataSourceRegister.class).stream().map(provider -> provider.get().shortName()).collect(Collectors.toSet());
        assertTrue(names.contains("gds"), names.toString());
    }
}
