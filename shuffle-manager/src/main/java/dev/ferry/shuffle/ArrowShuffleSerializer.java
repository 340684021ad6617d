package dev.ferry.shuffle;

import java.io.Serializable;
import java.util.Map;

import dev.ferry.shuffle.format.EncodingSettings;
import org.apache.spark.serializer.Serializer;
import org.apache.spark.serializer.SerializerInstance;
import org.apache.spark.sql.execution.UnsafeRowSerializer;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.types.StructType;

import static java.util.Objects.requireNonNull;

/**
 * The serializer of a Ferry shuffle dependency. It is what marks a dependency as Ferry's
 * ({@link FerryShuffleManager#registerShuffle} looks for it), and it carries what the map and
 * reduce sides need: the schema, the encoding settings and the exchange's metrics. Ferry's writer
 * and reader encode Arrow themselves; should Spark itself ever serialize rows of such a
 * dependency, it gets Spark's own {@link UnsafeRowSerializer}.
 */
public final class ArrowShuffleSerializer
        extends Serializer
        implements Serializable
{
    private static final long serialVersionUID = 1L;

    private final StructType schema;
    private final EncodingSettings encoding;
    private final ExchangeMetrics metrics;

    public ArrowShuffleSerializer(StructType schema, EncodingSettings encoding, ExchangeMetrics metrics)
    {
        this.schema = requireNonNull(schema, "schema is null");
        this.encoding = requireNonNull(encoding, "encoding is null");
        this.metrics = requireNonNull(metrics, "metrics is null");
    }

    public StructType schema()
    {
        return schema;
    }

    public EncodingSettings encoding()
    {
        return encoding;
    }

    public ExchangeMetrics metrics()
    {
        return metrics;
    }

    @Override
    public SerializerInstance newInstance()
    {
        return new UnsafeRowSerializer(schema.fields().length, metrics.dataSize()).newInstance();
    }

    @Override
    public boolean supportsRelocationOfSerializedObjects()
    {
        return true;
    }

    /** For tests and logs. */
    public Map<String, SQLMetric> routeMetrics()
    {
        return metrics.routeMetrics();
    }
}
