package dev.ferry.gds.aggregate;

import org.apache.spark.sql.types.DataType;

import java.io.Serializable;
import java.util.Locale;

import static java.util.Objects.requireNonNull;

/**
 * One aggregate Spark pushed into the scan.
 *
 * @param input the input, null for COUNT(*)
 * @param outputType the type Spark expects for the partial result (its own result type of the function)
 */
public record PushedAggregate(AggregateKind kind, AggregateInput input, DataType outputType)
        implements Serializable
{
    public PushedAggregate
    {
        requireNonNull(kind, "kind is null");
        requireNonNull(outputType, "outputType is null");
        if ((kind == AggregateKind.COUNT_STAR) != (input == null)) {
            throw new IllegalArgumentException(kind + " with input " + input);
        }
    }

    /** The input's type, null for COUNT(*). */
    public DataType inputType()
    {
        return input == null ? null : input.type();
    }

    @Override
    public String toString()
    {
        return kind == AggregateKind.COUNT_STAR ? "COUNT(*)" : kind.name().toUpperCase(Locale.ROOT) + "(" + input + ")";
    }
}
