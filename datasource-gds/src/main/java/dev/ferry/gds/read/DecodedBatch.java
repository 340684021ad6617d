package dev.ferry.gds.read;

import org.apache.arrow.vector.FieldVector;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The data columns of one batch, in read order; the receiver owns (and closes) the vectors.
 */
public record DecodedBatch(List<FieldVector> columns, int rows)
{
    public DecodedBatch
    {
        columns = List.copyOf(requireNonNull(columns, "columns is null"));
    }
}
