package dev.ferry.gds.spark;

import dev.ferry.gds.GdsConfigKeys;
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

    /** Whether an aggregate with one DISTINCT column over this table may be split for the scan ({@link SingleDistinctAggregateSplit}). */
    boolean splitsDistinctAggregates()
    {
        return state.settings().aggregatePushdown()
                && GdsConfigKeys.SPLIT_DISTINCT_AGGREGATE.get(new ReadConfigSource(state.options(), state.spark()));
    }

    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options)
    {
        return new GdsScanBuilder(state);
    }
}
