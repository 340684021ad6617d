package dev.ferry.gds.plan;

import dev.ferry.gds.parquet.ColumnNames;
import org.apache.spark.sql.catalyst.CatalystTypeConverters;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.sources.And;
import org.apache.spark.sql.sources.EqualNullSafe;
import org.apache.spark.sql.sources.EqualTo;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.GreaterThan;
import org.apache.spark.sql.sources.GreaterThanOrEqual;
import org.apache.spark.sql.sources.In;
import org.apache.spark.sql.sources.IsNotNull;
import org.apache.spark.sql.sources.IsNull;
import org.apache.spark.sql.sources.LessThan;
import org.apache.spark.sql.sources.LessThanOrEqual;
import org.apache.spark.sql.sources.Not;
import org.apache.spark.sql.sources.Or;
import org.apache.spark.sql.sources.StringStartsWith;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

import java.util.List;
import java.util.Objects;

import static java.util.Objects.requireNonNull;

/**
 * Skips files whose {@code key=value} partition values make a pushed filter false (or null) for every
 * row. Evaluation is three-valued and conservative: anything it does not understand is "unknown",
 * which keeps the file. Spark re-applies every filter after the scan.
 */
public final class PartitionPruner
{
    private enum Truth
    {
        TRUE, FALSE, NULL, UNKNOWN;

        Truth not()
        {
            switch (this) {
                case TRUE:
                    return FALSE;
                case FALSE:
                    return TRUE;
                case NULL:
                case UNKNOWN:
                    return this;
            }
            throw new IllegalStateException("Unknown truth " + this);
        }
    }

    private final List<Filter> filters;
    private final StructType partitionSchema;
    private final boolean caseSensitive;

    public PartitionPruner(List<Filter> filters, StructType partitionSchema, boolean caseSensitive)
    {
        this.filters = List.copyOf(requireNonNull(filters, "filters is null"));
        this.partitionSchema = requireNonNull(partitionSchema, "partitionSchema is null");
        this.caseSensitive = caseSensitive;
    }

    public static PartitionPruner none()
    {
        return new PartitionPruner(List.of(), new StructType(), false);
    }

    /** False when the filters prove no row of a file with these partition values can match. */
    public boolean mayMatch(InternalRow values)
    {
        for (Filter filter : filters) {
            Truth truth = evaluate(filter, values);
            if (truth == Truth.FALSE || truth == Truth.NULL) {
                return false;
            }
        }
        return true;
    }

    private Truth evaluate(Filter filter, InternalRow values)
    {
        if (filter instanceof And) {
            Truth left = evaluate(((And) filter).left(), values);
            Truth right = evaluate(((And) filter).right(), values);
            if (left == Truth.FALSE || right == Truth.FALSE) {
                return Truth.FALSE;
            }
            if (left == Truth.TRUE && right == Truth.TRUE) {
                return Truth.TRUE;
            }
            return left == Truth.UNKNOWN || right == Truth.UNKNOWN ? Truth.UNKNOWN : Truth.NULL;
        }
        if (filter instanceof Or) {
            Truth left = evaluate(((Or) filter).left(), values);
            Truth right = evaluate(((Or) filter).right(), values);
            if (left == Truth.TRUE || right == Truth.TRUE) {
                return Truth.TRUE;
            }
            if (left == Truth.FALSE && right == Truth.FALSE) {
                return Truth.FALSE;
            }
            return left == Truth.UNKNOWN || right == Truth.UNKNOWN ? Truth.UNKNOWN : Truth.NULL;
        }
        if (filter instanceof Not) {
            return evaluate(((Not) filter).child(), values).not();
        }
        if (filter instanceof IsNull) {
            return value(((IsNull) filter).attribute(), values).map(value -> value == Missing.NULL ? Truth.TRUE : Truth.FALSE);
        }
        if (filter instanceof IsNotNull) {
            return value(((IsNotNull) filter).attribute(), values).map(value -> value == Missing.NULL ? Truth.FALSE : Truth.TRUE);
        }
        if (filter instanceof EqualNullSafe) {
            EqualNullSafe equal = (EqualNullSafe) filter;
            return value(equal.attribute(), values).map(value -> {
                if (value == Missing.NULL || equal.value() == null) {
                    return value == Missing.NULL && equal.value() == null ? Truth.TRUE : Truth.FALSE;
                }
                return compare(value, equal.value(), 0, 0);
            });
        }
        if (filter instanceof EqualTo) {
            return comparison(((EqualTo) filter).attribute(), ((EqualTo) filter).value(), values, 0, 0);
        }
        if (filter instanceof GreaterThan) {
            return comparison(((GreaterThan) filter).attribute(), ((GreaterThan) filter).value(), values, 1, 1);
        }
        if (filter instanceof GreaterThanOrEqual) {
            return comparison(((GreaterThanOrEqual) filter).attribute(), ((GreaterThanOrEqual) filter).value(), values, 0, 1);
        }
        if (filter instanceof LessThan) {
            return comparison(((LessThan) filter).attribute(), ((LessThan) filter).value(), values, -1, -1);
        }
        if (filter instanceof LessThanOrEqual) {
            return comparison(((LessThanOrEqual) filter).attribute(), ((LessThanOrEqual) filter).value(), values, -1, 0);
        }
        if (filter instanceof In) {
            In in = (In) filter;
            return value(in.attribute(), values).map(value -> {
                if (value == Missing.NULL) {
                    return Truth.NULL;
                }
                boolean unknown = false;
                boolean sawNull = false;
                for (Object candidate : in.values()) {
                    Truth equal = candidate == null ? Truth.NULL : compare(value, candidate, 0, 0);
                    if (equal == Truth.TRUE) {
                        return Truth.TRUE;
                    }
                    unknown |= equal == Truth.UNKNOWN;
                    sawNull |= equal == Truth.NULL;
                }
                if (unknown) {
                    return Truth.UNKNOWN;
                }
                return sawNull ? Truth.NULL : Truth.FALSE;
            });
        }
        if (filter instanceof StringStartsWith) {
            StringStartsWith startsWith = (StringStartsWith) filter;
            return value(startsWith.attribute(), values).map(value -> {
                if (value == Missing.NULL) {
                    return Truth.NULL;
                }
                return value instanceof String ? (((String) value).startsWith(startsWith.value()) ? Truth.TRUE : Truth.FALSE) : Truth.UNKNOWN;
            });
        }
        return Truth.UNKNOWN;
    }

    private Truth comparison(String attribute, Object literal, InternalRow values, int low, int high)
    {
        return value(attribute, values).map(value -> value == Missing.NULL || literal == null ? Truth.NULL : compare(value, literal, low, high));
    }

    // TRUE when the sign of value.compareTo(literal) lies in [low, high]; UNKNOWN for values of different classes.
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Truth compare(Object value, Object literal, int low, int high)
    {
        if (value.getClass() != literal.getClass() || !(value instanceof Comparable)) {
            return Truth.UNKNOWN;
        }
        int sign = Integer.signum(((Comparable) value).compareTo(literal));
        return sign >= low && sign <= high ? Truth.TRUE : Truth.FALSE;
    }

    /** The external (Scala/Java) value of a partition column, {@link Missing#NULL} for null, or unknown when not a partition column. */
    private Lookup value(String attribute, InternalRow values)
    {
        StructField[] fields = partitionSchema.fields();
        for (int index = 0; index < fields.length; index++) {
            if (ColumnNames.sameName(fields[index].name(), attribute, caseSensitive)) {
                if (values.isNullAt(index)) {
                    return new Lookup(Missing.NULL);
                }
                Object internal = values.get(index, fields[index].dataType());
                return new Lookup(CatalystTypeConverters.convertToScala(internal, fields[index].dataType()));
            }
        }
        return new Lookup(null);
    }

    private enum Missing
    {
        NULL
    }

    private record Lookup(Object value)
    {
        Truth map(java.util.function.Function<Object, Truth> test)
        {
            return value == null ? Truth.UNKNOWN : Objects.requireNonNull(test.apply(value), "truth is null");
        }
    }
}
