package dev.ferry.shuffle.format.append;

import java.util.List;

import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters;
import org.apache.spark.sql.types.Decimal;

/**
 * Fills the vectors of one {@link VectorSchemaRoot} from rows, one appender per column: flat
 * columns by address ({@link FixedWidthAppender}, {@link VariableWidthAppender}), the others with
 * Spark's own field writers. The values and validity it produces are those Spark's
 * {@code ArrowWriter} would produce for the same rows (pinned by TestRowAppender).
 */
public final class RowAppender
{
    private final ColumnAppender[] columns;
    private int rows;

    public RowAppender(VectorSchemaRoot root)
    {
        List<FieldVector> vectors = root.getFieldVectors();
        this.columns = new ColumnAppender[vectors.size()];
        for (int i = 0; i < columns.length; i++) {
            columns[i] = forVector(vectors.get(i));
        }
    }

    /** The direct appender for {@code vector}'s type where there is one, else Spark's field writer. */
    static ColumnAppender forVector(FieldVector vector)
    {
        if (vector instanceof BitVector) {
            return new FixedWidthAppender((BitVector) vector, FixedKind.BOOLEAN, 0, 0);
        }
        if (vector instanceof TinyIntVector) {
            return new FixedWidthAppender((TinyIntVector) vector, FixedKind.BYTE, 0, 0);
        }
        if (vector instanceof SmallIntVector) {
            return new FixedWidthAppender((SmallIntVector) vector, FixedKind.SHORT, 0, 0);
        }
        if (vector instanceof IntVector) {
            return new FixedWidthAppender((IntVector) vector, FixedKind.INT, 0, 0);
        }
        if (vector instanceof DateDayVector) {
            return new FixedWidthAppender((DateDayVector) vector, FixedKind.INT, 0, 0);
        }
        if (vector instanceof BigIntVector) {
            return new FixedWidthAppender((BigIntVector) vector, FixedKind.LONG, 0, 0);
        }
        if (vector instanceof TimeStampVector) {
            // Spark's timestamps (with or without zone) are microseconds in a long.
            return new FixedWidthAppender((TimeStampVector) vector, FixedKind.LONG, 0, 0);
        }
        if (vector instanceof Float4Vector) {
            return new FixedWidthAppender((Float4Vector) vector, FixedKind.FLOAT, 0, 0);
        }
        if (vector instanceof Float8Vector) {
            return new FixedWidthAppender((Float8Vector) vector, FixedKind.DOUBLE, 0, 0);
        }
        if (vector instanceof DecimalVector && ((DecimalVector) vector).getPrecision() <= Decimal.MAX_LONG_DIGITS()) {
            DecimalVector decimal = (DecimalVector) vector;
            return new FixedWidthAppender(decimal, FixedKind.DECIMAL64, decimal.getPrecision(), decimal.getScale());
        }
        if (vector instanceof DecimalVector) {
            DecimalVector decimal = (DecimalVector) vector;
            return new FixedWidthAppender(decimal, FixedKind.DECIMAL128, decimal.getPrecision(), decimal.getScale());
        }
        if (vector instanceof VarCharVector) {
            return new VariableWidthAppender((BaseVariableWidthVector) vector, false);
        }
        if (vector instanceof VarBinaryVector) {
            return new VariableWidthAppender((BaseVariableWidthVector) vector, true);
        }
        return new SparkFieldAppender(vector);
    }

    public void append(InternalRow row)
    {
        int index = rows;
        for (int i = 0; i < columns.length; i++) {
            columns[i].append(row, i, index);
        }
        rows = index + 1;
    }

    /** Appends {@code count} rows column by column (the same values as {@link #append} on each row in turn). */
    public void appendAll(SpecializedGetters[] rows, int count)
    {
        int index = this.rows;
        for (int i = 0; i < columns.length; i++) {
            columns[i].appendAll(rows, count, i, index);
        }
        this.rows = index + count;
    }

    public int rows()
    {
        return rows;
    }

    /** Uncompressed bytes of the open batch. */
    public long sizeInBytes()
    {
        long bytes = 0;
        for (ColumnAppender column : columns) {
            bytes += column.sizeInBytes(rows);
        }
        return bytes;
    }

    /** Sets every vector's value count (and the root's row count is the caller's). */
    public void finish()
    {
        for (ColumnAppender column : columns) {
            column.finish(rows);
        }
    }

    public void reset()
    {
        for (ColumnAppender column : columns) {
            column.reset();
        }
        rows = 0;
    }
}
