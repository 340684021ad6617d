package dev.ferry.gds.spark;

import dev.ferry.gds.aggregate.AggregatePlan;
import dev.ferry.gds.aggregate.AggregatePushdown;
import dev.ferry.gds.parquet.ColumnNames;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownAggregates;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.read.SupportsPushDownV2Filters;
import org.apache.spark.sql.internal.connector.PredicateUtils;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.Option;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Column pruning, filter pushdown and partial aggregate pushdown. Pushed filters only prune row
 * groups by statistics: every predicate is handed back as a post-scan filter, so Spark re-applies all
 * of them, and so Spark offers aggregates only for scans without filters.
 */
final class GdsScanBuilder
        implements ScanBuilder, SupportsPushDownRequiredColumns, SupportsPushDownV2Filters, SupportsPushDownAggregates
{
    private final GdsTableState state;
    private StructType requiredSchema;
    private Predicate[] pushed = new Predicate[0];
    private final List<Filter> filters = new ArrayList<>();
    private final List<Filter> partitionFilters = new ArrayList<>();
    private Optional<AggregatePlan> aggregate = Optional.empty();

    GdsScanBuilder(GdsTableState state)
    {
        this.state = requireNonNull(state, "state is null");
        this.requiredSchema = state.tableSchema();
    }

    @Override
    public void pruneColumns(StructType requiredSchema)
    {
        this.requiredSchema = requireNonNull(requiredSchema, "requiredSchema is null");
    }

    @Override
    public Predicate[] pushPredicates(Predicate[] predicates)
    {
        List<Predicate> usable = new ArrayList<>();
        filters.clear();
        partitionFilters.clear();
        for (Predicate predicate : predicates) {
            Option<Filter> filter = PredicateUtils.toV1(predicate);
            if (filter.isEmpty()) {
                continue;
            }
            int partitionReferences = partitionReferences(predicate);
            if (partitionReferences == 0) {
                usable.add(predicate);
                filters.add(filter.get());
            }
            else if (partitionReferences == predicate.references().length) {
                usable.add(predicate);
                partitionFilters.add(filter.get());
            }
        }
        pushed = usable.toArray(new Predicate[0]);
        return predicates;
    }

    @Override
    public Predicate[] pushedPredicates()
    {
        return pushed.clone();
    }

    /**
     * Takes the aggregation where every function, input and group key is one the scan computes
     * exactly as Spark does ({@link AggregatePushdown}); Spark then finishes the partial results each
     * task returns. Never complete: a group's rows span tasks.
     */
    @Override
    public boolean pushAggregation(Aggregation aggregation)
    {
        // Pushed filters only prune row groups and Spark re-applies them above the scan; it should
        // never offer aggregates then, but if it did, rows the filters reject would be counted too.
        if (!state.settings().aggregatePushdown() || pushed.length > 0 || !filters.isEmpty() || !partitionFilters.isEmpty()) {
            return false;
        }
        aggregate = AggregatePushdown.plan(aggregation, state.tableSchema(), state.settings().caseSensitive());
        return aggregate.isPresent();
    }

    @Override
    public Scan build()
    {
        return new GdsScan(state, requiredSchema, filters, partitionFilters, pushed, aggregate);
    }

    private int partitionReferences(Predicate predicate)
    {
        int count = 0;
        for (NamedReference reference : predicate.references()) {
            String[] names = reference.fieldNames();
            for (StructField partition : state.partitionSchema().fields()) {
                if (names.length == 1 && ColumnNames.sameName(names[0], partition.name(), state.settings().caseSensitive())) {
                    count++;
                    break;
                }
            }
        }
        return count;
    }
}
