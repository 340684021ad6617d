package dev.ferry.gds.spark;

import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.And;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Cast;
import org.apache.spark.sql.catalyst.expressions.Coalesce;
import org.apache.spark.sql.catalyst.expressions.EqualTo;
import org.apache.spark.sql.catalyst.expressions.EvalMode$;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GreaterThan;
import org.apache.spark.sql.catalyst.expressions.If;
import org.apache.spark.sql.catalyst.expressions.IsNull;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression$;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateFunction;
import org.apache.spark.sql.catalyst.expressions.aggregate.Complete$;
import org.apache.spark.sql.catalyst.expressions.aggregate.Count;
import org.apache.spark.sql.catalyst.expressions.aggregate.Max;
import org.apache.spark.sql.catalyst.expressions.aggregate.Min;
import org.apache.spark.sql.catalyst.expressions.aggregate.Sum;
import org.apache.spark.sql.catalyst.plans.logical.Aggregate;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.IntegralType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.AbstractPartialFunction;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Rewrites an aggregate over a gds table whose DISTINCT functions all take one column {@code d} into two:
 *
 * <pre>
 *   Aggregate(G, [count(*), sum(x), min(y), count(DISTINCT d)], child)
 *   =>
 *   Aggregate(G, [coalesce(sum(c), 0), sum(s), min(m), count(d)],
 *             Aggregate(G + d, [G, d, count(*) AS c, sum(x) AS s, min(y) AS m], child))
 * </pre>
 *
 * <p>Why: Spark never offers an aggregate with a DISTINCT function to a source for partial pushdown, so such a query
 * decodes every row into Spark's aggregation even where the scan could aggregate ({@link GdsScanBuilder#pushAggregation}).
 * Spark itself plans one distinct column as exactly this pair (a partial aggregate grouped by {@code G + d}, then the
 * distinct functions over one row per {@code d}); written as a logical plan before the scan pushdown runs
 * ({@code injectPreCBORule}), the inner GROUP BY is offered to the scan like any other.
 *
 * <p>Only where the two levels give Spark's answers exactly: the group keys and {@code d} are columns; no FILTER
 * clause; the other functions are COUNT (summed, an empty input still counting 0), MIN and MAX, and SUM over integers
 * (long sums wrap or fail alike in any order) or over decimals (the outer sum, in a wider decimal, is cast back to
 * Spark's result type: an overflow is an error under ANSI in both plans, and a null otherwise, where an inner sum that
 * overflowed to null makes the whole sum null as one overflowed partial does in Spark's); never SUM over floating types, whose result
 * would depend on the grouping, nor AVG. The distinct functions are COUNT, SUM, MIN and MAX of {@code d}, which become
 * the plain function over one row per value. Anything else keeps Spark's plan (logged at debug).
 */
final class SingleDistinctAggregateSplit
        extends Rule<LogicalPlan>
{
    private static final Logger log = LoggerFactory.getLogger(SingleDistinctAggregateSplit.class);

    @Override
    public LogicalPlan apply(LogicalPlan plan)
    {
        return plan.transformUp(new AbstractPartialFunction<>()
        {
            @Override
            public boolean isDefinedAt(LogicalPlan node)
            {
                return node instanceof Aggregate aggregate && hasDistinct(aggregate) && gdsTable(aggregate.child()).isPresent();
            }

            @Override
            public <A1 extends LogicalPlan, B1> B1 applyOrElse(A1 node, scala.Function1<A1, B1> fallback)
            {
                if (!isDefinedAt(node)) {
                    return fallback.apply(node);
                }
                Aggregate aggregate = (Aggregate) node;
                if (!gdsTable(aggregate.child()).get().splitsDistinctAggregates()) {
                    @SuppressWarnings("unchecked")
                    B1 same = (B1) node;
                    return same;
                }
                Split split = new Split(aggregate);
                Optional<String> refusal = split.refusal();
                if (refusal.isPresent()) {
                    log.debug("Aggregate over a gds table left as Spark plans it ({}): {}", refusal.get(), aggregate.simpleString(200));
                    @SuppressWarnings("unchecked")
                    B1 same = (B1) node;
                    return same;
                }
                LogicalPlan plan = split.plan();
                // The columns above must not see another type or nullability; a mismatch is this rule's bug, never the query's.
                if (!plan.schema().equals(aggregate.schema())) {
                    log.warn("Aggregate over a gds table left as Spark plans it: its split would change the output from {} to {}",
                            aggregate.schema().simpleString(), plan.schema().simpleString());
                    @SuppressWarnings("unchecked")
                    B1 same = (B1) node;
                    return same;
                }
                log.debug("Aggregate with one DISTINCT column split over its gds scan: {}", aggregate.simpleString(200));
                @SuppressWarnings("unchecked")
                B1 rewritten = (B1) plan;
                return rewritten;
            }
        });
    }

    private static boolean hasDistinct(Aggregate aggregate)
    {
        for (AggregateExpression expression : aggregateExpressions(aggregate)) {
            if (expression.isDistinct()) {
                return true;
            }
        }
        return false;
    }

    /** The gds table under projections and filters, where the scan pushdown will find it. */
    private static Optional<GdsTable> gdsTable(LogicalPlan plan)
    {
        LogicalPlan node = plan;
        while (node instanceof Project || node instanceof Filter) {
            node = node.children().head();
        }
        if (node instanceof DataSourceV2Relation relation && relation.table() instanceof GdsTable table) {
            return Optional.of(table);
        }
        return Optional.empty();
    }

    private static List<AggregateExpression> aggregateExpressions(Aggregate aggregate)
    {
        List<AggregateExpression> found = new ArrayList<>();
        for (NamedExpression expression : CollectionConverters.asJava(aggregate.aggregateExpressions())) {
            collect((Expression) expression, found);
        }
        return found;
    }

    private static void collect(Expression expression, List<AggregateExpression> found)
    {
        if (expression instanceof AggregateExpression aggregate) {
            found.add(aggregate);
            return;
        }
        for (Expression child : CollectionConverters.asJava(expression.children())) {
            collect(child, found);
        }
    }

    /** One aggregate's rewrite: checked first ({@link #refusal}), then built ({@link #plan}). */
    private static final class Split
    {
        private final Aggregate aggregate;
        private final List<Expression> groups;
        private final List<AggregateExpression> functions;
        private Attribute distinctColumn;

        Split(Aggregate aggregate)
        {
            this.aggregate = aggregate;
            this.groups = CollectionConverters.asJava(aggregate.groupingExpressions());
            this.functions = aggregateExpressions(aggregate);
        }

        Optional<String> refusal()
        {
            for (Expression group : groups) {
                if (!(group instanceof Attribute)) {
                    return Optional.of("a group key is an expression: " + group.sql());
                }
            }
            for (AggregateExpression function : functions) {
                if (function.filter().isDefined()) {
                    return Optional.of("a FILTER clause: " + function.sql());
                }
                if (!function.isDistinct()) {
                    Optional<String> refused = refusedPart(function.aggregateFunction());
                    if (refused.isPresent()) {
                        return refused;
                    }
                    continue;
                }
                AggregateFunction distinct = function.aggregateFunction();
                List<Expression> inputs = CollectionConverters.asJava(distinct.children());
                if (inputs.size() != 1 || !(inputs.get(0) instanceof Attribute column)) {
                    return Optional.of("DISTINCT of other than one column: " + function.sql());
                }
                if (distinctColumn != null && !distinctColumn.semanticEquals(column)) {
                    return Optional.of("DISTINCT of two columns: " + distinctColumn.sql() + ", " + column.sql());
                }
                distinctColumn = column;
                boolean plain = distinct instanceof Count || distinct instanceof Min || distinct instanceof Max
                        || (distinct instanceof Sum && exactSum((Sum) distinct));
                if (!plain) {
                    return Optional.of("a DISTINCT function the split does not take: " + function.sql());
                }
            }
            for (Expression group : groups) {
                if (group.semanticEquals(distinctColumn)) {
                    return Optional.of("the DISTINCT column is a group key: " + group.sql());
                }
            }
            return Optional.empty();
        }

        /** Why a non-distinct function cannot be computed from per-value partial results, if it cannot. */
        private static Optional<String> refusedPart(AggregateFunction function)
        {
            if (function instanceof Count || function instanceof Min || function instanceof Max) {
                return Optional.empty();
            }
            if (function instanceof Sum sum && exactSum(sum)) {
                return Optional.empty();
            }
            return Optional.of("a function whose partial results do not add up exactly: " + function.sql());
        }

        // SUM whose value does not depend on the order it adds in: integers (long arithmetic) and decimals (exact; an
        // overflow fails under ANSI in both plans and is a null without it, see merge); never floating types.
        private static boolean exactSum(Sum sum)
        {
            DataType input = sum.child().dataType();
            return input instanceof IntegralType || input instanceof DecimalType;
        }

        LogicalPlan plan()
        {
            List<NamedExpression> innerOutput = new ArrayList<>();
            List<Expression> innerGroups = new ArrayList<>(groups);
            innerGroups.add(distinctColumn);
            for (Expression group : innerGroups) {
                innerOutput.add((Attribute) group);
            }
            // One inner result per distinct non-distinct function (by meaning), and what replaces it above.
            Map<Expression, Expression> finals = new LinkedHashMap<>();
            for (AggregateExpression function : functions) {
                Expression key = function.canonicalized();
                if (finals.containsKey(key)) {
                    continue;
                }
                if (function.isDistinct()) {
                    finals.put(key, complete(function.aggregateFunction()));
                    continue;
                }
                Alias partial = alias(complete(function.aggregateFunction()), "partial_" + finals.size());
                innerOutput.add(partial);
                Attribute values = null;
                if (overflowIsNull(function.aggregateFunction())) {
                    // The values each inner sum saw: an inner sum that is null over values overflowed.
                    Alias counted = alias(complete(new Count(function.aggregateFunction().children())), "values_" + finals.size());
                    innerOutput.add(counted);
                    values = counted.toAttribute();
                }
                finals.put(key, merge(function.aggregateFunction(), partial.toAttribute(), values));
            }
            LogicalPlan inner = new Aggregate(seq(innerGroups), seq(innerOutput), aggregate.child(), Option.empty());
            List<NamedExpression> outerOutput = new ArrayList<>();
            for (NamedExpression expression : CollectionConverters.asJava(aggregate.aggregateExpressions())) {
                outerOutput.add((NamedExpression) replaceFunctions((Expression) expression, finals));
            }
            return new Aggregate(seq(groups), seq(outerOutput), inner, aggregate.hint());
        }

        /**
         * The outer function that finishes one inner partial result into the original function's value and type;
         * {@code values}, for a decimal SUM whose overflow is a null, counts the values under each inner sum.
         */
        private static Expression merge(AggregateFunction function, Attribute partial, Attribute values)
        {
            if (function instanceof Count) {
                // A sum of counts is null where there are no rows at all; COUNT is 0 there.
                return new Coalesce(seq(List.of(complete(new Sum(partial)), Literal.create(0L, DataTypes.LongType))));
            }
            if (function instanceof Sum sum) {
                Expression total = complete(new Sum(partial, sum.evalContext()));
                scala.Enumeration.Value mode = sum.evalContext().evalMode();
                // SUM over DECIMAL(p + 10, s) widens to p + 20; back to Spark's type, an overflow failing (ANSI) or
                // giving null (otherwise) as Spark's SUM does.
                Expression result = total.dataType().equals(sum.dataType()) ? total : new Cast(total, sum.dataType(), Option.empty(), mode);
                if (values == null) {
                    return result;
                }
                // Without ANSI an overflowed SUM is null, and the outer SUM would skip that null: any inner sum that is null over
                // values makes the whole SUM null, as one overflowed partial makes Spark's.
                Expression overflowed = complete(new Max(new And(new IsNull(partial), new GreaterThan(values, Literal.create(0L, DataTypes.LongType)))));
                return new If(new EqualTo(overflowed, Literal.create(true, DataTypes.BooleanType)), Literal.create(null, sum.dataType()), result);
            }
            if (function instanceof Min) {
                return complete(new Min(partial));
            }
            return complete(new Max(partial));
        }

        // A decimal SUM outside ANSI: an overflow gives null instead of failing.
        private static boolean overflowIsNull(AggregateFunction function)
        {
            return function instanceof Sum sum && sum.child().dataType() instanceof DecimalType && sum.evalContext().evalMode() != EvalMode$.MODULE$.ANSI();
        }

        private static Alias alias(Expression child, String name)
        {
            return new Alias(child, name, NamedExpression$.MODULE$.newExprId(), seq(List.<String>of()), Option.empty(), seq(List.<String>of()));
        }

        private static AggregateExpression complete(AggregateFunction function)
        {
            return new AggregateExpression(function, Complete$.MODULE$, false, Option.empty(), NamedExpression$.MODULE$.newExprId());
        }

        private static Expression replaceFunctions(Expression expression, Map<Expression, Expression> finals)
        {
            // Bottom up, so the replacement (itself holding aggregate expressions) is not visited again.
            return expression.transformUp(new AbstractPartialFunction<>()
            {
                @Override
                public boolean isDefinedAt(Expression node)
                {
                    return node instanceof AggregateExpression;
                }

                @Override
                public <A1 extends Expression, B1> B1 applyOrElse(A1 node, scala.Function1<A1, B1> fallback)
                {
                    if (!isDefinedAt(node)) {
                        return fallback.apply(node);
                    }
                    Expression replacement = finals.get(node.canonicalized());
                    if (replacement == null) {
                        throw new IllegalStateException("No split result for " + node.sql());
                    }
                    @SuppressWarnings("unchecked")
                    B1 replaced = (B1) replacement;
                    return replaced;
                }
            });
        }

        private static <T> scala.collection.immutable.Seq<T> seq(List<T> list)
        {
            return CollectionConverters.asScala(list).toSeq();
        }
    }
}
