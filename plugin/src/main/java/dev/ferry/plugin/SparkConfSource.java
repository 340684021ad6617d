package dev.ferry.plugin;

import java.util.Optional;

import dev.ferry.conf.ConfigSource;
import org.apache.spark.SparkConf;

import static java.util.Objects.requireNonNull;

/** Reads {@code spark.ferry.*} keys from a live {@link SparkConf}. */
public final class SparkConfSource
        implements ConfigSource
{
    private final SparkConf conf;

    public SparkConfSource(SparkConf conf)
    {
        this.conf = requireNonNull(conf, "conf is null");
    }

    @Override
    public Optional<String> get(String key)
    {
        return conf.contains(key) ? Optional.of(conf.get(key)) : Optional.empty();
    }
}
