package dev.ferry.conf;

import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

import static java.util.Objects.requireNonNull;

/**
 * One {@code spark.ferry.*} setting: its name, type, default and documentation, defined once.
 * Each module lists its keys in a {@link ConfigKeySet}; the documentation is generated from there
 * ({@link ConfigDocs}), so a key cannot exist without its text.
 *
 * @param <T> the parsed type
 */
public final class ConfigKey<T>
{
    private final String name;
    private final T defaultValue;
    private final String defaultText;
    private final String doc;
    private final Function<String, T> parser;

    private ConfigKey(String name, T defaultValue, String defaultText, String doc, Function<String, T> parser)
    {
        this.name = requireNonNull(name, "name is null");
        if (!name.startsWith("spark.ferry.")) {
            throw new IllegalArgumentException("Ferry config keys start with spark.ferry.: " + name);
        }
        this.defaultValue = defaultValue;
        this.defaultText = requireNonNull(defaultText, "defaultText is null");
        this.doc = requireNonNull(doc, "doc is null");
        this.parser = requireNonNull(parser, "parser is null");
    }

    public static ConfigKey<String> string(String name, String defaultValue, String doc)
    {
        return new ConfigKey<>(name, defaultValue, String.valueOf(defaultValue), doc, Function.identity());
    }

    /**
     * A string that {@code check} accepts: it throws {@link IllegalArgumentException} saying what is
     * wrong and what is allowed, so the start-up check ({@link ConfigCheck}) refuses the value there.
     */
    public static ConfigKey<String> string(String name, String defaultValue, String doc, java.util.function.Consumer<String> check)
    {
        requireNonNull(check, "check is null");
        return new ConfigKey<>(name, defaultValue, String.valueOf(defaultValue), doc, value -> {
            check.accept(value);
            return value;
        });
    }

    public static ConfigKey<Boolean> bool(String name, boolean defaultValue, String doc)
    {
        return new ConfigKey<>(name, defaultValue, String.valueOf(defaultValue), doc, value -> parseBoolean(name, value));
    }

    public static ConfigKey<Integer> integer(String name, int defaultValue, String doc)
    {
        return new ConfigKey<>(name, defaultValue, String.valueOf(defaultValue), doc, value -> {
            try {
                return Integer.parseInt(value.trim());
            }
            catch (NumberFormatException e) {
                throw new IllegalArgumentException(name + " must be an integer, got '" + value + "'", e);
            }
        });
    }

    public static ConfigKey<Double> decimal(String name, double defaultValue, String doc)
    {
        return new ConfigKey<>(name, defaultValue, String.valueOf(defaultValue), doc, value -> {
            try {
                return Double.parseDouble(value.trim());
            }
            catch (NumberFormatException e) {
                throw new IllegalArgumentException(name + " must be a number, got '" + value + "'", e);
            }
        });
    }

    /** A size in bytes, accepting Spark-style suffixes (k, m, g, t; with or without "b"). */
    public static ConfigKey<Long> bytes(String name, String defaultValue, String doc)
    {
        return new ConfigKey<>(name, ByteSizes.parse(name, defaultValue), defaultValue, doc, value -> ByteSizes.parse(name, value));
    }

    /** One constant of an enum, matched case-insensitively by name. */
    public static <E extends Enum<E>> ConfigKey<E> choice(String name, Class<E> type, E defaultValue, String doc)
    {
        return new ConfigKey<>(name, defaultValue, defaultValue.name().toLowerCase(Locale.ROOT), doc, value -> parseEnum(name, type, value));
    }

    public String name()
    {
        return name;
    }

    public T defaultValue()
    {
        return defaultValue;
    }

    public String defaultText()
    {
        return defaultText;
    }

    public String doc()
    {
        return doc;
    }

    /** The value from {@code source}, or the default; a malformed value is an error naming the key. */
    public T get(ConfigSource source)
    {
        Optional<String> raw = source.get(name);
        return raw.isPresent() ? parser.apply(raw.get()) : defaultValue;
    }

    public T parse(String raw)
    {
        return parser.apply(raw);
    }

    @Override
    public String toString()
    {
        return name;
    }

    private static boolean parseBoolean(String name, String value)
    {
        String trimmed = value.trim().toLowerCase(Locale.ROOT);
        switch (trimmed) {
            case "true":
            case "yes":
            case "1":
                return true;
            case "false":
            case "no":
            case "0":
                return false;
            default:
                throw new IllegalArgumentException(name + " must be true or false, got '" + value + "'");
        }
    }

    private static <E extends Enum<E>> E parseEnum(String name, Class<E> type, String value)
    {
        for (E constant : type.getEnumConstants()) {
            if (constant.name().equalsIgnoreCase(value.trim())) {
                return constant;
            }
        }
        StringBuilder allowed = new StringBuilder();
        for (E constant : type.getEnumConstants()) {
            if (allowed.length() > 0) {
                allowed.append('|');
            }
            allowed.append(constant.name().toLowerCase(Locale.ROOT));
        }
        throw new IllegalArgumentException(name + " must be one of " + allowed + ", got '" + value + "'");
    }
}
