package dev.ferry.topology.route;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.conf.ConfigKey;
import dev.ferry.conf.ConfigSource;

import static java.util.Objects.requireNonNull;

/**
 * A configuration value together with whether the user set it, so decisions can say where a threshold came from.
 *
 * @param key the key
 * @param value the effective value
 * @param explicit whether the value was set rather than defaulted
 */
public record Setting<T>(ConfigKey<T> key, T value, boolean explicit)
{
    public Setting
    {
        requireNonNull(key, "key is null");
        requireNonNull(value, "value is null");
    }

    public static <T> Setting<T> read(ConfigKey<T> key, ConfigSource source)
    {
        try {
            return new Setting<>(key, key.get(source), source.get(key.name()).isPresent());
        }
        catch (IllegalArgumentException e) {
            throw new FerryException(ErrorCategory.USER_ERROR, e.getMessage(), e);
        }
    }

    /** E.g. {@code spark.ferry.route.p2pLevel=PXB (default)}. */
    public String describe()
    {
        String shown = value instanceof Enum<?> constant ? constant.name() : String.valueOf(value);
        return key.name() + "=" + shown + (explicit ? " (set)" : " (default)");
    }
}
