package dev.ferry.gds.spark;

import dev.ferry.conf.ConfigSource;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/** Ferry settings for one read: a read option of the key's full name wins over the session's value. */
final class ReadConfigSource
        implements ConfigSource
{
    private final CaseInsensitiveStringMap options;
    private final SparkSession spark;

    ReadConfigSource(CaseInsensitiveStringMap options, SparkSession spark)
    {
        this.options = requireNonNull(options, "options is null");
        this.spark = requireNonNull(spark, "spark is null");
    }

    @Override
    public Optional<String> get(String key)
    {
        String option = options.get(key);
        if (option != null) {
            return Optional.of(option);
        }
        scala.Option<String> session = spark.conf().getOption(key);
        return session.isDefined() ? Optional.of(session.get()) : Optional.empty();
    }
}
