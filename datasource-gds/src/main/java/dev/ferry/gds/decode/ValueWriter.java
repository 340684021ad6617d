package dev.ferry.gds.decode;

import org.apache.arrow.vector.FieldVector;
import org.apache.parquet.column.ColumnReader;

/**
 * Moves the current value of a column reader into slot {@code index} of an Arrow vector, converting
 * from the Parquet physical and logical type to Spark's type the way Spark's own reader does. Slots
 * not written stay null.
 */
abstract class ValueWriter
{
    abstract void bind(FieldVector vector);

    abstract void write(ColumnReader reader, int index);
}
