package dev.ferry.shuffle.exchange;

import java.util.Objects;

import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.SortOrder;
import org.apache.spark.sql.catalyst.plans.physical.Partitioning;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.UnaryExecNode;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.Seq;

import static java.util.Objects.requireNonNull;

/**
 * A pass-through node placed under a Spark exchange that Ferry left in place, so the reason shows
 * in the plan's explain output ({@code FerryFallback <reason>}). It changes nothing: same output,
 * partitioning, ordering and columnar support as its child, and it executes its child directly.
 */
public final class FerryFallbackExec
        extends SparkPlan
        implements UnaryExecNode
{
    private static final long serialVersionUID = 1L;

    private final String reason;
    private final SparkPlan child;

    public FerryFallbackExec(String reason, SparkPlan child)
    {
        this.reason = requireNonNull(reason, "reason is null");
        this.child = requireNonNull(child, "child is null");
    }

    public String reason()
    {
        return reason;
    }

    @Override
    public SparkPlan child()
    {
        return child;
    }

    @Override
    public Seq<SparkPlan> children()
    {
        return UnaryExecNode.super.children();
    }

    @Override
    public SparkPlan withNewChildrenInternal(IndexedSeq<SparkPlan> newChildren)
    {
        return UnaryExecNode.super.withNewChildrenInternal(newChildren);
    }

    @Override
    public SparkPlan withNewChildInternal(SparkPlan newChild)
    {
        return new FerryFallbackExec(reason, newChild);
    }

    @Override
    public Seq<Attribute> output()
    {
        return child.output();
    }

    @Override
    public Partitioning outputPartitioning()
    {
        return child.outputPartitioning();
    }

    @Override
    public Seq<SortOrder> outputOrdering()
    {
        return child.outputOrdering();
    }

    @Override
    public boolean supportsColumnar()
    {
        return child.supportsColumnar();
    }

    @Override
    public RDD<InternalRow> doExecute()
    {
        return child.execute();
    }

    @Override
    public RDD<ColumnarBatch> doExecuteColumnar()
    {
        return child.executeColumnar();
    }

    @Override
    public int productArity()
    {
        return 2;
    }

    @Override
    public Object productElement(int index)
    {
        switch (index) {
            case 0:
                return reason;
            case 1:
                return child;
            default:
                throw new IndexOutOfBoundsException("FerryFallbackExec has 2 elements, not " + (index + 1));
        }
    }

    @Override
    public boolean canEqual(Object other)
    {
        return other instanceof FerryFallbackExec;
    }

    @Override
    public boolean equals(Object other)
    {
        return other instanceof FerryFallbackExec && reason.equals(((FerryFallbackExec) other).reason) && child.equals(((FerryFallbackExec) other).child);
    }

    @Override
    public int hashCode()
    {
        return Objects.hash(reason, child);
    }
}
