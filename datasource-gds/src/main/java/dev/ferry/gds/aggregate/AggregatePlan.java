package dev.ferry.gds.aggregate;

import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

import java.io.Serializable;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * What a scan with pushed aggregates computes: per group of {@code groupColumns}, a partial result of
 * each of {@code aggregates}, read from the columns of {@code inputSchema}.
 *
 * @param groupOrdinals each group column's index in {@code inputSchema}
 */
public record AggregatePlan(List<StructField> groupColumns, List<PushedAggregate> aggregates, StructType inputSchema, int[] groupOrdinals)
        implements Serializable
{
    public AggregatePlan
    {
        groupColumns = List.copyOf(groupColumns);
        aggregates = List.copyOf(aggregates);
        requireNonNull(inputSchema, "inputSchema is null");
        groupOrdinals = groupOrdinals.clone();
    }

    /**
     * The scan's output as Spark expects it after a partial pushdown: the group columns, then one
     * column per aggregate, in the order Spark pushed them.
     */
    public StructType outputSchema()
    {
        StructField[] fields = new StructField[groupColumns.size() + aggregates.size()];
        for (int index = 0; index < groupColumns.size(); index++) {
            fields[index] = new StructField("group_col_" + index, groupColumns.get(index).dataType(), true, Metadata.empty());
        }
        for (int index = 0; index < aggregates.size(); index++) {
            fields[groupColumns.size() + index] = new StructField("agg_func_" + index, aggregates.get(index).outputType(), true,
                    Metadata.empty());
        }
        return new StructType(fields);
    }

    /** COUNT(*) alone without GROUP BY: row-group row counts answer it without reading a page. */
    public boolean answeredByRowCounts()
    {
        return groupColumns.isEmpty() && aggregates.stream().allMatch(aggregate -> aggregate.kind() == AggregateKind.COUNT_STAR);
    }

    @Override
    public int[] groupOrdinals()
    {
        return groupOrdinals.clone();
    }
}
