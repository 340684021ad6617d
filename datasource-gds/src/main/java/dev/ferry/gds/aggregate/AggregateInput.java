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

    record Column(StructField field)
            implements AggregateInput
    {
        @Override
        public DataType type()
        {
            return field.dataType();
        }

        @Override
        public List<StructField> columns()
        {
            return List.of(field);
        }

        @Override
        public String toString()
        {
            return field.name();
        }
    }

    /** {@code length(string)}: characters as Spark counts them ({@code UTF8String.numChars}). */
    record CharLength(StructField field)
            implements AggregateInput
    {
        @Override
        public DataType type()
        {
            return DataTypes.IntegerType;
        }

        @Override
        public List<StructField> columns()
        {
            return List.of(field);
        }

        @Override
        public String toString()
        {
            return "CHAR_LENGTH(" + field.name() + ")";
        }
    }

    /** {@code boolean column = value}: true only where the column is not null and equals it. */
    record BooleanTest(StructField field, boolean value)
            implements Serializable
    {
        @Override
        public String toString()
        {
            return field.name() + " = " + value;
        }
    }

    /**
     * {@code CASE WHEN test THEN literal ... ELSE literal END} over boolean tests and integral
     * literals of one type: the first true test's value, else the else value (null without one).
     */
    record CaseWhen(List<BooleanTest> tests, List<Long> values, Long elseValue, DataType type)
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
            return tests.stream().map(BooleanTest::field).distinct().collect(Collectors.toList());
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
