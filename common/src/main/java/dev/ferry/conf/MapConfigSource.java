package dev.ferry.conf;

import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/** A fixed set of values, for tests and for settings gathered from command-line flags. */
public final class MapConfigSource
        implements ConfigSource
{
    private final Map<String, String> values;

    public MapConfigSource(Map<String, String> values)
    {
        this.values = Map.copyOf(requireNonNull(values, "values is null"));
    }

    public static MapConfigSource empty()
    {
        return new MapConfigSource(Map.of());
    }

    @Override
    public Optional<String> get(String key)
    {
        return Optional.ofNullable(values.get(key));
    }
}
