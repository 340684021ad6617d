package dev.ferry.gds.aggregate;

import dev.ferry.gds.parquet.ColumnNames;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.GeneralScalarExpression;
import org.apache.spark.sql.connector.expressions.LiteralValue;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.aggregate.AggregateFunc;
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation;
import org.apache.spark.sql.connector.expressions.aggregate.Count;
import org.apache.spark.sql.connector.expressions.aggregate.CountStar;
import org.apache.spark.sql.connector.expressions.aggregate.Max;
import org.apache.spark.sql.connector.expressions.aggregate.Min;
import org.apache.spark.sql.connector.expressions.aggregate.Sum;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Decides which of Spark's pushed aggregations a gds scan takes: only those it computes with exactly
 * Spark's semantics (see {@link Accumulator} for how), over top-level columns and a few expressions
 * ({@link AggregateInput}). Anything else, DISTINCT, other expressions as inputs, expressions as group
 * keys, other functions or types, is refused and Spark aggregates as without pushdown.
 */
public final class AggregatePushdown
{
    // SUM over DECIMAL(p, s) is DECIMAL(p + 10, s) in Spark while p + 10 <= 38; above, Spark caps the
    // precision and its overflow behaviour depends on the order it adds, which a partial sum changes.
    private static final int MAX_SUM_DECIMAL_PRECISION = DecimalType.MAX_PRECISION() - 10;

    private AggregatePushdown() {}

    public static Optional<AggregatePlan> plan(Aggregation aggregation, StructType tableSchema, boolean caseSensitive)
    {
        List<StructField> groups = new ArrayList<>();
        for (Expression expression : aggregation.groupByExpressions()) {
            Optional<StructField> column = column(expression, tableSchema, caseSensitive);
            if (column.isEmpty() || !groupable(column.get().dataType())) {
                return Optional.empty();
            }
            groups.add(column.get());
        }
        List<PushedAggregate> aggregates = new ArrayList<>();
        List<StructField> inputs = new ArrayList<>();
        for (AggregateFunc function : aggregation.aggregateExpressions()) {
            Optional<PushedAggregate> pushed = aggregate(function, tableSchema, caseSensitive);
            if (pushed.isEmpty()) {
                return Optional.empty();
            }
            aggregates.add(pushed.get());
            if (pushed.get().input() != null) {
                inputs.addAll(pushed.get().input().columns());
            }
        }
        if (splitLongAverage(aggregates)) {
            return Optional.empty();
        }
        // Read each needed column once, in table order.
        List<StructField> read = new ArrayList<>();
        for (StructField field : tableSchema.fields()) {
            if (groups.contains(field) || inputs.contains(field)) {
                read.add(field);
            }
        }
        StructType inputSchema = new StructType(read.toArray(new StructField[0]));
        int[] groupOrdinals = new int[groups.size()];
        for (int index = 0; index < groups.size(); index++) {
            groupOrdinals[index] = read.indexOf(groups.get(index));
        }
        return Optional.of(new AggregatePlan(groups, aggregates, inputSchema, groupOrdinals));
    }

    private static Optional<PushedAggregate> aggregate(AggregateFunc function, StructType tableSchema, boolean caseSensitive)
    {
        if (function instanceof CountStar) {
            return Optional.of(new PushedAggregate(AggregateKind.COUNT_STAR, null, DataTypes.LongType));
        }
        Expression argument;
        AggregateKind kind;
        if (function instanceof Count count && !count.isDistinct()) {
            argument = count.column();
            kind = AggregateKind.COUNT;
        }
        else if (function instanceof Sum sum && !sum.isDistinct()) {
            argument = sum.column();
            kind = AggregateKind.SUM;
        }
        else if (function instanceof Min min) {
            argument = min.column();
            kind = AggregateKind.MIN;
        }
        else if (function instanceof Max max) {
            argument = max.column();
            kind = AggregateKind.MAX;
        }
        else {
            return Optional.empty();
        }
        Optional<AggregateInput> input = input(argument, tableSchema, caseSensitive);
        if (input.isEmpty()) {
            return Optional.empty();
        }
        DataType type = input.get().type();
        Optional<DataType> output = switch (kind) {
            case COUNT -> groupable(type) ? Optional.of(DataTypes.LongType) : Optional.empty();
            case SUM -> sumType(type);
            case MIN, MAX -> orderable(type) ? Optional.of(type) : Optional.empty();
            case COUNT_STAR -> throw new IllegalStateException("COUNT(*) has no column");
        };
        if (output.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new PushedAggregate(kind, input.get(), output.get()));
    }

    /**
     * A column, or one of the expressions {@link InputEvaluator} computes as Spark does: Spark hands
     * {@code length(s)} as CHAR_LENGTH and {@code CASE WHEN mode = 'AIR' THEN 1 ELSE 0 END} as CASE_WHEN of
     * a predicate and literals ({@link ValueTests} says which predicates; {@code CASE WHEN flag} arrives as
     * {@code flag = true}).
     */
    private static Optional<AggregateInput> input(Expression expression, StructType tableSchema, boolean caseSensitive)
    {
        if (expression instanceof NamedReference) {
            return column(expression, tableSchema, caseSensitive).map(AggregateInput.Column::new);
        }
        if (!(expression instanceof GeneralScalarExpression scalar) || expression instanceof Predicate) {
            return Optional.empty();
        }
        Expression[] children = scalar.children();
        if (scalar.name().equals("CHAR_LENGTH") && children.length == 1) {
            // Length of binary counts bytes; only strings count characters.
            return column(children[0], tableSchema, caseSensitive).filter(field -> field.dataType() instanceof StringType)
                    .map(AggregateInput.CharLength::new);
        }
        if (scalar.name().equals("%") && children.length == 2) {
            // Spark has coerced both sides to one type; a literal of another type means a cast the scan does not do.
            Optional<StructField> column = column(children[0], tableSchema, caseSensitive).filter(field -> integral(field.dataType()));
            Optional<Long> divisor = integralLiteral(children[1]);
            if (column.isEmpty() || divisor.isEmpty() || divisor.get() == 0
                    || !((LiteralValue<?>) children[1]).dataType().equals(column.get().dataType())) {
                return Optional.empty();
            }
            return Optional.of(new AggregateInput.Remainder(column.get(), divisor.get()));
        }
        if (scalar.name().equals("CASE_WHEN") && children.length >= 2) {
            List<AggregateInput.ValueTest> tests = new ArrayList<>();
            List<Long> values = new ArrayList<>();
            DataType type = null;
            for (int index = 0; index + 1 < children.length; index += 2) {
                Optional<AggregateInput.ValueTest> test = ValueTests.of(children[index], tableSchema, caseSensitive);
                Optional<Long> value = integralLiteral(children[index + 1]);
                DataType valueType = ((children[index + 1] instanceof LiteralValue<?> literal) ? literal.dataType() : null);
                if (test.isEmpty() || value.isEmpty() || (type != null && !type.equals(valueType))) {
                    return Optional.empty();
                }
                type = valueType;
                tests.add(test.get());
                values.add(value.get());
            }
            Long elseValue = null;
            if (children.length % 2 == 1) {
                Expression last = children[children.length - 1];
                if (!(last instanceof LiteralValue<?> literal) || (literal.value() != null && !literal.dataType().equals(type))) {
                    return Optional.empty();
                }
                if (literal.value() != null) {
                    Optional<Long> value = integralLiteral(last);
                    if (value.isEmpty()) {
                        return Optional.empty();
                    }
                    elseValue = value.get();
                }
            }
            return Optional.of(new AggregateInput.CaseWhen(tests, values, elseValue, type));
        }
        return Optional.empty();
    }

    private static Optional<Long> integralLiteral(Expression expression)
    {
        if (expression instanceof LiteralValue<?> literal && integral(literal.dataType()) && literal.value() instanceof Number number) {
            return Optional.of(number.longValue());
        }
        return Optional.empty();
    }

    /**
     * Whether SUM and COUNT of one BIGINT input are both pushed, as Spark pushes AVG split for a
     * source that does not take it whole. Spark then divides a BIGINT SUM, which overflows (an ANSI
     * error, or a wrapped value without ANSI) where its own AVG sums in DOUBLE and does not: such an
     * aggregation is left to Spark. (A SUM of narrower integers needs over 2^32 rows to overflow a
     * long; decimal and floating AVG sum in the SUM's own type.)
     */
    private static boolean splitLongAverage(List<PushedAggregate> aggregates)
    {
        for (PushedAggregate sum : aggregates) {
            if (sum.kind() != AggregateKind.SUM || !(sum.inputType() instanceof LongType)) {
                continue;
            }
            for (PushedAggregate count : aggregates) {
                if (count.kind() == AggregateKind.COUNT && count.input().equals(sum.input())) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Spark's result type of SUM over {@code type}, where the scan can compute it. */
    private static Optional<DataType> sumType(DataType type)
    {
        if (integral(type)) {
            return Optional.of(DataTypes.LongType);
        }
        if (type instanceof FloatType || type instanceof DoubleType) {
            return Optional.of(DataTypes.DoubleType);
        }
        if (type instanceof DecimalType decimal && decimal.precision() <= MAX_SUM_DECIMAL_PRECISION) {
            return Optional.of(DataTypes.createDecimalType(decimal.precision() + 10, decimal.scale()));
        }
        return Optional.empty();
    }

    static boolean integral(DataType type)
    {
        return type instanceof ByteType || type instanceof ShortType || type instanceof IntegerType || type instanceof LongType;
    }

    /** Types whose order the accumulators reproduce as Spark's: numbers, dates, timestamps, booleans, binary-collation strings. */
    private static boolean orderable(DataType type)
    {
        return integral(type) || type instanceof FloatType || type instanceof DoubleType || type instanceof DecimalType || type instanceof DateType
                || type instanceof TimestampType || type instanceof TimestampNTZType || type instanceof BooleanType
                || (type instanceof StringType string && string.isUTF8BinaryCollation());
    }

    /** Group keys: the orderable types, whose equality is Spark's too (floating keys are normalized as Spark does). */
    private static boolean groupable(DataType type)
    {
        return orderable(type);
    }

    static Optional<StructField> column(Expression expression, StructType tableSchema, boolean caseSensitive)
    {
        if (!(expression instanceof NamedReference reference) || reference.fieldNames().length != 1) {
            return Optional.empty();
        }
        for (StructField field : tableSchema.fields()) {
            if (ColumnNames.sameName(field.name(), reference.fieldNames()[0], caseSensitive)) {
                return Optional.of(field);
            }
        }
        return Optional.empty();
    }
}
