package dev.ferry.shuffle.exchange;

import dev.ferry.conf.ConfigSource;
import dev.ferry.shuffle.ShuffleConfigKeys;
import dev.ferry.conf.SparkConfigSources;
import dev.ferry.shuffle.format.ChecksumAlgorithm;
import dev.ferry.shuffle.format.EncodingSettings;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkEnv;
import org.apache.spark.internal.config.package$;
import org.apache.spark.sql.internal.SQLConf;

/** The per-exchange encoding, from the session (Ferry's keys) and the application (Spark's checksum keys). */
final class ExchangeSettings
{
    private ExchangeSettings() {}

    static EncodingSettings encoding()
    {
        ConfigSource session = SparkConfigSources.of(SQLConf.get());
        return new EncodingSettings(
                ShuffleConfigKeys.CODEC.get(session),
                ShuffleConfigKeys.ZSTD_LEVEL.get(session),
                ShuffleConfigKeys.MIN_COMPRESS_BYTES.get(session),
                ShuffleConfigKeys.BATCH_TARGET_BYTES.get(session),
                ShuffleConfigKeys.MAP_BUFFER_BYTES.get(session),
                checksum(),
                ShuffleConfigKeys.SCATTER_BUFFER_BYTES.get(session));
    }

    /** Spark's own {@code spark.shuffle.checksum.enabled} / {@code .algorithm}, with Spark's defaults. */
    static ChecksumAlgorithm checksum()
    {
        SparkEnv env = SparkEnv.get();
        SparkConf conf = env == null ? new SparkConf(false) : env.conf();
        boolean enabled = conf.getBoolean(package$.MODULE$.SHUFFLE_CHECKSUM_ENABLED().key(), Boolean.parseBoolean(package$.MODULE$.SHUFFLE_CHECKSUM_ENABLED().defaultValueString()));
        String algorithm = conf.get(package$.MODULE$.SHUFFLE_CHECKSUM_ALGORITHM().key(), package$.MODULE$.SHUFFLE_CHECKSUM_ALGORITHM().defaultValueString());
        return ChecksumAlgorithm.fromSparkSettings(enabled, algorithm);
    }
}
