package dev.ferry.shuffle.exchange;

import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.SparkSessionExtensionsProvider;
import scala.runtime.BoxedUnit;

/**
 * Registered through {@code META-INF/services/org.apache.spark.sql.SparkSessionExtensionsProvider},
 * so every session with Ferry's jar gets the columnar exchange rule; {@code spark.ferry.enabled}
 * switches it per query.
 */
public final class FerrySessionExtensions
        implements SparkSessionExtensionsProvider
{
    @Override
    public BoxedUnit apply(SparkSessionExtensions extensions)
    {
        extensions.injectColumnar(session -> new FerryColumnarRule());
        return BoxedUnit.UNIT;
    }
}
