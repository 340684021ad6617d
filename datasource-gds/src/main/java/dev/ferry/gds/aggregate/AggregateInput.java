package dev.ferry.gds.aggregate;

import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;

import java.io.Serializable;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The input of a pushed aggregate: a column, or one of the few expressions over columns the scan
 * evaluates exactly as Spark does ({@link InputEvaluator}).
 */
public sealed interface AggregateInput
        extends Serializable
{
    /** The type Spark gives the input (what the aggregate's result type follows from). */
    DataType type();

    /** The table columns it reads. */
    List<StructField> columns();

    /** An input computed from one column's value alone. */
    sealed interface OverOneColumn
            extends AggregateInput
    {
        StructField field();

        @Override
        default List<StructField> columns()
        {
            return List.of(field());
        }
    }

    record Column(StructField field)
            implements OverOneColumn
    {
        @Override
        public DataType type()
        {
            return field.dataType();
        }

        @Override
        public String toString()
        {
            return field.name();
        }
    }

    /** {@code length(string)}: characters as Spark counts them ({@code UTF8String.numChars}). */
    record CharLength(StructField field)
            implements OverOneColumn
    {
        @Override
        public DataType type()
        {
            return DataTypes.IntegerType;
        }

        @Override
        public String toString()
        {
            return "CHAR_LENGTH(" + field.name() + ")";
        }
    }

    /**
     * {@code column % divisor} over an integer column and a non-zero literal of the column's own type (Spark coerces the
     * literal to it): Java's remainder, whose sign follows the dividend, as Spark's {@code %}; {@code MIN_VALUE % -1} is 0
     * in both. A null column value gives null. Spark hands it to the scan only under ANSI (its V2 translation of
     * arithmetic), where a zero divisor would be an error; a zero literal is never taken.
     */
    record Remainder(StructField field, long divisor)
            implements OverOneColumn
    {
        public Remainder
        {
            if (divisor == 0) {
                throw new IllegalArgumentException("A remainder by zero is not evaluated in the scan: " + field.name());
            }
        }

        @Override
        public DataType type()
        {
            return field.dataType();
        }

        @Override
        public String toString()
        {
            return field.name() + " % " + divisor;
        }
    }

    /**
     * {@code column = literal}, {@code column IN (literals)}, or NOT of one: true only where the column
     * is not null and (unless negated) equals one of the literals, as SQL says (a null is never equal,
     * and NOT of unknown is unknown). Literals are Spark's values of the column's own type (UTF8String,
     * Integer days for dates, Decimal, boxed integers, Boolean); see {@link ValueTestMatcher}.
     */
    record ValueTest(StructField field, List<Object> literals, boolean negated)
            implements Serializable
    {
        public ValueTest
        {
            literals = List.copyOf(literals);
            if (literals.isEmpty()) {
                throw new IllegalArgumentException("A test of " + field.name() + " needs a literal");
            }
        }

        /** The same test, NOT of it. */
        ValueTest not()
        {
            // NOT (flag = true) is flag = false for a boolean column (null stays not true): keep the plain form.
            if (literals.size() == 1 && literals.get(0) instanceof Boolean value && !negated) {
                return new ValueTest(field, List.of(!value), false);
            }
            return new ValueTest(field, literals, !negated);
        }

        @Override
        public String toString()
        {
            String test;
            if (literals.size() == 1) {
                test = field.name() + " = " + LiteralText.of(literals.get(0), field.dataType());
            }
            else {
                StringBuilder text = new StringBuilder(field.name()).append(" IN (");
                for (int index = 0; index < literals.size(); index++) {
                    text.append(index == 0 ? "" : ", ").append(LiteralText.of(literals.get(index), field.dataType()));
                }
                test = text.append(")").toString();
            }
            return negated ? "NOT (" + test + ")" : test;
        }
    }

    /**
     * {@code CASE WHEN test THEN literal ... ELSE literal END} over value tests and integral
     * literals of one type: the first true test's value, else the else value (null without one).
     */
    record CaseWhen(List<ValueTest> tests, List<Long> values, Long elseValue, DataType type)
            implements AggregateInput
    {
        public CaseWhen
        {
            tests = List.copyOf(tests);
            values = List.copyOf(values);
            if (tests.size() != values.size() || tests.isEmpty()) {
                throw new IllegalArgumentException("CASE WHEN needs one value per test");
            }
        }

        @Override
        public List<StructField> columns()
        {
            return tests.stream().map(ValueTest::field).distinct().collect(Collectors.toList());
        }

        @Override
        public String toString()
        {
            StringBuilder text = new StringBuilder("CASE");
            for (int index = 0; index < tests.size(); index++) {
                text.append(" WHEN ").append(tests.get(index)).append(" THEN ").append(values.get(index));
            }
            return text.append(" ELSE ").append(elseValue).append(" END").toString();
        }
    }
}
