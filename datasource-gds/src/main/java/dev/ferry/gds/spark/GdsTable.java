package dev.ferry.gds.spark;

import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

import java.util.EnumSet;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/** A set of Parquet files read by the gds data source. */
final class GdsTable
        implements SupportsRead
{
    private final GdsTableState state;

    GdsTable(GdsTableState state)
    {
        this.state = requireNonNull(state, "state is null");
    }

    @Override
    public String name()
    {
        return state.name();
    }

    @Override
    @SuppressWarnings("deprecation") // Spark 4 still derives columns() from schema() by default
    public StructType schema()
    {
        return state.tableSchema();
    }

    @Override
    public Set<TableCapability> capabilities()
    {
        return EnumSet.of(TableCapability.BATCH_READ);
    }

    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options)
    {
        return new GdsScanBuilder(state);
    }
}
