package dev.ferry.gds.spark;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import scala.Option;

import java.util.Map;

/**
 * {@code spark.read.format("gds")} and {@code USING gds}: Parquet files, directories, globs and
 * {@code key=value} partition directories. Spark creates one instance per lookup and calls
 * {@link #inferSchema} before {@link #getTable} on it, so the listing and footers read for inference
 * are kept for planning.
 */
public final class GdsDataSource
        implements TableProvider, DataSourceRegister
{
    private GdsTableState inferred;

    @Override
    public String shortName()
    {
        return "gds";
    }

    @Override
    public StructType inferSchema(CaseInsensitiveStringMap options)
    {
        inferred = GdsTableState.load(SparkSession.active(), options, Option.empty());
        return inferred.tableSchema();
    }

    @Override
    public boolean supportsExternalMetadata()
    {
        return true;
    }

    @Override
    public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties)
    {
        CaseInsensitiveStringMap options = new CaseInsensitiveStringMap(properties);
        GdsTableState state = inferred != null && inferred.options().equals(options)
                ? inferred
                : GdsTableState.load(SparkSession.active(), options, Option.apply(schema));
        return new GdsTable(state.withSchema(schema));
    }
}
