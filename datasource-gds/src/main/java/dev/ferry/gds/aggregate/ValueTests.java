package dev.ferry.gds.aggregate;

import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.LiteralValue;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads a CASE WHEN's test as Spark pushes it into an {@link AggregateInput.ValueTest}:
 * {@code column = literal} (either side), {@code column <> literal}, {@code column IN (literals)} and
 * NOT of those, over a top-level column whose equality the scan decides exactly as Spark does.
 * Spark coerces a literal to the column's type before pushing (folding the cast); a literal of any
 * other type, a cast column or a null literal is refused.
 */
final class ValueTests
{
    private ValueTests() {}

    static Optional<AggregateInput.ValueTest> of(Expression expression, StructType tableSchema, boolean caseSensitive)
    {
        if (!(expression instanceof Predicate predicate)) {
            return Optional.empty();
        }
        Expression[] children = predicate.children();
        switch (predicate.name()) {
            case "NOT":
                return children.length == 1 ? of(children[0], tableSchema, caseSensitive).map(AggregateInput.ValueTest::not) : Optional.empty();
            case "=":
            case "<>":
                if (children.length != 2) {
                    return Optional.empty();
                }
                Expression column = children[0];
                Expression literal = children[1];
                if (column instanceof LiteralValue<?>) {
                    column = children[1];
                    literal = children[0];
                }
                Optional<AggregateInput.ValueTest> equal = test(column, List.of(literal), tableSchema, caseSensitive);
                return predicate.name().equals("=") ? equal : equal.map(AggregateInput.ValueTest::not);
            case "IN":
                if (children.length < 2) {
                    return Optional.empty();
                }
                return test(children[0], List.of(children).subList(1, children.length), tableSchema, caseSensitive);
            default:
                return Optional.empty();
        }
    }

    private static Optional<AggregateInput.ValueTest> test(Expression column, List<Expression> literals, StructType tableSchema, boolean caseSensitive)
    {
        Optional<StructField> field = AggregatePushdown.column(column, tableSchema, caseSensitive).filter(candidate -> testable(candidate.dataType()));
        if (field.isEmpty()) {
            return Optional.empty();
        }
        DataType type = field.get().dataType();
        List<Object> values = new ArrayList<>();
        for (Expression expression : literals) {
            if (!(expression instanceof LiteralValue<?> literal) || !literal.dataType().equals(type) || !holds(type, literal.value())) {
                return Optional.empty();
            }
            if (!values.contains(literal.value())) {
                values.add(literal.value());
            }
        }
        return Optional.of(new AggregateInput.ValueTest(field.get(), values, false));
    }

    /**
     * Types whose equality {@link ValueTestMatcher} decides as Spark does: integers, booleans, dates,
     * DECIMAL up to 18 digits (unscaled longs of one scale) and binary-collation strings (bytes).
     * Floating types (NaN and -0.0 rules), other collations and timestamps are left to Spark.
     */
    static boolean testable(DataType type)
    {
        return AggregatePushdown.integral(type) || type instanceof BooleanType || type instanceof DateType
                || (type instanceof DecimalType decimal && decimal.precision() <= Decimal.MAX_LONG_DIGITS())
                || (type instanceof StringType string && string.isUTF8BinaryCollation());
    }

    /** Whether {@code value} is Spark's internal value of {@code type} (not null). */
    private static boolean holds(DataType type, Object value)
    {
        if (type instanceof StringType) {
            return value instanceof UTF8String;
        }
        if (type instanceof DecimalType decimal) {
            return value instanceof Decimal literal && literal.scale() == decimal.scale() && literal.precision() <= decimal.precision();
        }
        if (type instanceof BooleanType) {
            return value instanceof Boolean;
        }
        if (type instanceof IntegerType || type instanceof DateType) {
            return value instanceof Integer;
        }
        if (type instanceof LongType) {
            return value instanceof Long;
        }
        if (type instanceof ShortType) {
            return value instanceof Short;
        }
        return type instanceof ByteType && value instanceof Byte;
    }
}
