package dev.ferry.gds.aggregate;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * One task's partial aggregation: batches of the plan's input columns in, rows of the plan's
 * output schema out (one per group, plus any partial an accumulator spilled). Without GROUP BY there
 * is always a row, even for no input: Spark finishes COUNT with SUM, which would make an empty
 * table's COUNT null instead of 0 if no task returned one.
 */
public final class PartialAggregator
{
    private final AggregatePlan plan;
    private final int[] groupOrdinals;
    private final InputEvaluator[] inputs;
    private final Accumulator[] accumulators;
    private final GroupKeys keys;
    private final List<InternalRow> spilled = new ArrayList<>();
    private int[] ids = new int[0];

    public PartialAggregator(AggregatePlan plan)
    {
        this.plan = requireNonNull(plan, "plan is null");
        this.groupOrdinals = plan.groupOrdinals();
        this.accumulators = new Accumulator[plan.aggregates().size()];
        this.inputs = new InputEvaluator[accumulators.length];
        for (int index = 0; index < accumulators.length; index++) {
            PushedAggregate aggregate = plan.aggregates().get(index);
            accumulators[index] = Accumulator.of(aggregate, index, this::spill);
            inputs[index] = aggregate.input() == null ? null : InputEvaluator.of(aggregate.input(), plan.inputSchema());
        }
        List<DataType> types = new ArrayList<>();
        for (StructField field : plan.groupColumns()) {
            types.add(field.dataType());
        }
        this.keys = types.isEmpty() ? null : GroupKeys.of(types);
        if (keys == null) {
            grow(1);
        }
    }

    /** Adds a batch whose columns are the plan's input schema. */
    public void add(ColumnarBatch batch)
    {
        int rows = batch.numRows();
        if (rows == 0) {
            return;
        }
        int[] groups = null;
        if (keys != null) {
            if (ids.length < rows) {
                ids = new int[rows];
            }
            ColumnVector[] keyColumns = new ColumnVector[groupOrdinals.length];
            for (int index = 0; index < keyColumns.length; index++) {
                keyColumns[index] = batch.column(groupOrdinals[index]);
            }
            keys.assign(keyColumns, rows, ids);
            grow(keys.groups());
            groups = ids;
        }
        for (int index = 0; index < accumulators.length; index++) {
            accumulators[index].add(inputs[index] == null ? null : inputs[index].evaluate(batch), rows, groups);
        }
    }

    /** Adds rows known only by their number: valid where the plan is answered by row counts. */
    public void addRows(long rows)
    {
        if (!plan.answeredByRowCounts()) {
            throw new IllegalStateException("Row counts do not answer " + plan.aggregates());
        }
        for (Accumulator accumulator : accumulators) {
            ((CountAccumulator) accumulator).addRows(rows);
        }
    }

    /** The partial results: spilled partials first, then one row per group. */
    public List<InternalRow> results()
    {
        List<InternalRow> rows = new ArrayList<>(spilled);
        int groups = keys == null ? 1 : keys.groups();
        for (int group = 0; group < groups; group++) {
            Object[] values = new Object[groupOrdinals.length + accumulators.length];
            if (keys != null) {
                keys.writeKey(group, values);
            }
            for (int index = 0; index < accumulators.length; index++) {
                values[groupOrdinals.length + index] = accumulators[index].result(group);
            }
            rows.add(new GenericInternalRow(values));
        }
        return rows;
    }

    private void grow(int groups)
    {
        for (Accumulator accumulator : accumulators) {
            accumulator.grow(groups);
        }
    }

    // A row of the group's key, this partial, and for every other aggregate a partial of no rows.
    private void spill(int group, int aggregate, Object partial)
    {
        Object[] values = new Object[groupOrdinals.length + accumulators.length];
        if (keys != null) {
            keys.writeKey(group, values);
        }
        for (int index = 0; index < accumulators.length; index++) {
            values[groupOrdinals.length + index] = index == aggregate ? partial : accumulators[index].empty();
        }
        spilled.add(new GenericInternalRow(values));
    }
}
