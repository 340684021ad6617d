package dev.ferry.gds.spark;

import dev.ferry.gds.plan.SchemaInference;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.read.SupportsPushDownV2Filters;
import org.apache.spark.sql.internal.connector.PredicateUtils;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.Option;

import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Column pruning and filter pushdown. Pushed filters only prune row groups by statistics: every
 * predicate is handed back as a post-scan filter, so Spark re-applies all of them.
 */
final class GdsScanBuilder
        implements ScanBuilder, SupportsPushDownRequiredColumns, SupportsPushDownV2Filters
{
    private final GdsTableState state;
    private StructType requiredSchema;
    private Predicate[] pushed = new Predicate[0];
    private final List<Filter> filters = new ArrayList<>();
    private final List<Filter> partitionFilters = new ArrayList<>();

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

    @Override
    public Scan build()
    {
        return new GdsScan(state, requiredSchema, filters, partitionFilters, pushed);
    }

    private int partitionReferences(Predicate predicate)
    {
        int count = 0;
        for (NamedReference reference : predicate.references()) {
            String[] names = reference.fieldNames();
            for (StructField partition : state.partitionSchema().fields()) {
                if (names.length == 1 && SchemaInference.sameName(names[0], partition.name(), state.settings().caseSensitive())) {
                    count++;
                    break;
                }
            }
        }
        return count;
    }
}
