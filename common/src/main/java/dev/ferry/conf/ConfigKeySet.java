package dev.ferry.conf;

import java.util.List;

/**
 * The keys one module defines. Implementations are listed in
 * {@code META-INF/services/dev.ferry.conf.ConfigKeySet} so {@link ConfigDocs} finds every key.
 */
public interface ConfigKeySet
{
    /** A short title for the documentation section, e.g. "Topology". */
    String section();

    List<ConfigKey<?>> keys();
}
