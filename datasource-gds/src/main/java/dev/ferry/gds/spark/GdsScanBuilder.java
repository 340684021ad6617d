package dev.ferry.gds.spark;

import dev.ferry.gds.aggregate.AggregatePlan;
import dev.ferry.gds.aggregate.AggregatePushdown;
import dev.ferry.gds.GdsConfigKeys;
import dev.ferry.gds.read.RowFilter;
import dev.ferry.topology.route.FileConsumer;
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
 * Column pruning, filter pushdown and partial aggregate pushdown. Pushed filters prune row groups by
 * statistics and, on data columns, rows by the row filter. A data filter the row filter evaluates
 * exactly ({@link RowFilter#exact}) is not handed back to Spark when {@code spark.ferry.gds.filter.exact}
 * is on and the consumer is the CPU (device batches are not filtered by row); every other predicate is
 * handed back as a post-scan filter, which Spark re-applies. Spark offers aggregates only when no
 * filter stays above the scan.
 */
final class GdsScanBuilder
        implements ScanBuilder, SupportsPushDownRequiredColumns, SupportsPushDownV2Filters, SupportsPushDownAggregates
{
    private final GdsTableState state;
    private StructType requiredSchema;
    private Predicate[] pushed = new Predicate[0];
    private final List<Filter> filters = new ArrayList<>();
    // Those of filters that Spark was told need no re-evaluation: the scan's rows satisfy them exactly.
    private final List<Filter> exactFilters = new ArrayList<>();
    private int postScanFilters;
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
        List<Predicate> postScan = new ArrayList<>();
        filters.clear();
        exactFilters.clear();
        partitionFilters.clear();
        boolean claimExact = claimsExactFilters();
        for (Predicate predicate : predicates) {
            Option<Filter> filter = PredicateUtils.toV1(predicate);
            if (filter.isEmpty()) {
                postScan.add(predicate);
                continue;
            }
            int partitionReferences = partitionReferences(predicate);
            if (partitionReferences == 0) {
                usable.add(predicate);
                filters.add(filter.get());
                if (claimExact && RowFilter.exact(filter.get(), state.tableSchema(), state.settings().caseSensitive())) {
                    exactFilters.add(filter.get());
                }
                else {
                    postScan.add(predicate);
                }
            }
            else {
                // Partition filters prune files; Spark evaluates them (and mixed ones) above the scan.
                if (partitionReferences == predicate.references().length) {
                    usable.add(predicate);
                    partitionFilters.add(filter.get());
                }
                postScan.add(predicate);
            }
        }
        pushed = usable.toArray(new Predicate[0]);
        postScanFilters = postScan.size();
        return postScan.toArray(new Predicate[0]);
    }

    /** Whether the tasks evaluate the pushed data filters on every row they return (see the class comment). */
    private boolean claimsExactFilters()
    {
        return GdsConfigKeys.FILTER_EXACT.get(new ReadConfigSource(state.options(), state.spark())) && state.settings().filterPushdown()
                && state.settings().rowFilter() && state.settings().consumer() == FileConsumer.CPU;
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
        // Spark offers aggregates only when no filter stays above the scan; if it did otherwise, rows
        // those filters reject would be counted too. Exact filters are applied to every row the tasks aggregate.
        if (!state.settings().aggregatePushdown() || postScanFilters > 0 || filters.size() != exactFilters.size() || !partitionFilters.isEmpty()) {
            return false;
        }
        aggregate = AggregatePushdown.plan(aggregation, state.tableSchema(), state.settings().caseSensitive());
        return aggregate.isPresent();
    }

    @Override
    public Scan build()
    {
        return new GdsScan(state, requiredSchema, filters, exactFilters, partitionFilters, pushed, aggregate);
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
