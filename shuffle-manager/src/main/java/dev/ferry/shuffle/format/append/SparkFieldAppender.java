package dev.ferry.shuffle.format.append;

import org.apache.arrow.vector.FieldVector;
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters;
import org.apache.spark.sql.execution.arrow.ArrowFieldWriter;
import org.apache.spark.sql.execution.arrow.ArrowWriter$;

/**
 * Columns without a direct appender (nested types, wide decimals, intervals, nulls) go through
 * Spark's own Arrow field writer: the mapping {@code ArrowColumnVector} reads back.
 */
final class SparkFieldAppender
        extends ColumnAppender
{
    private final ArrowFieldWriter writer;

    SparkFieldAppender(FieldVector vector)
    {
        vector.allocateNew();
        this.writer = ArrowWriter$.MODULE$.createFieldWriter(vector);
    }

    @Override
    public void append(SpecializedGetters row, int ordinal, int index)
    {
        writer.write(row, ordinal);
    }

    @Override
    public void appendAll(SpecializedGetters[] rows, int count, int ordinal, int firstIndex)
    {
        for (int i = 0; i < count; i++) {
            append(rows[i], ordinal, firstIndex + i);
        }
    }

    @Override
    public void finish(int rows)
    {
        writer.finish();
    }

    @Override
    public void reset()
    {
        writer.reset();
    }

    @Override
    public long sizeInBytes(int rows)
    {
        return writer.getSizeInBytes();
    }
}
