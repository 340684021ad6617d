package dev.ferry.conf;

import java.util.Optional;

import org.apache.spark.SparkConf;
import org.apache.spark.sql.internal.SQLConf;

import static java.util.Objects.requireNonNull;

/**
 * Spark's two places for settings as {@link ConfigSource}s. Spark is a {@code provided} dependency
 * of this module: only the modules that run inside Spark call this class.
 */
public final class SparkConfigSources
{
    private SparkConfigSources() {}

    /** Static settings of the application (executors see the same). */
    public static ConfigSource of(SparkConf conf)
    {
        requireNonNull(conf, "conf is null");
        return key -> conf.contains(key) ? Optional.of(conf.get(key)) : Optional.empty();
    }

    /** The session's settings, which {@code SET k=v} changes at run time; falls back to the SparkConf. */
    public static ConfigSource of(SQLConf conf)
    {
        requireNonNull(conf, "conf is null");
        return key -> Optional.ofNullable(conf.getConfString(key, null));
    }
}
