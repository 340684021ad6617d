package dev.ferry.gds.decode;

import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;

/**
 * How the flat fast path lays a column's values into its Arrow vector: straight into the vector's
 * buffers, with no conversion beyond widening to the vector's width. Each {@link ParquetSparkType}
 * that needs no per-value conversion names one.
 */
enum FlatLayout
{
    /** 4-byte values stored as Parquet has them (INT32, FLOAT). */
    FIXED4(4),
    /** 8-byte values stored as Parquet has them (INT64, DOUBLE). */
    FIXED8(8),
    /** Bits. */
    BOOL(0),
    /** INT96 (nanos of day, Julian day) converted to 8-byte microseconds, no calendar rebase. */
    INT96(8),
    /** Offsets and data of a variable-width vector. */
    VARBYTES(0),
    /** INT32/INT64 unscaled decimals widened to Arrow's 16-byte decimals. */
    DECIMAL(16);

    // A batch's strings usually fit this first data buffer; more grows it by doubling.
    private static final long INITIAL_BYTES_PER_ROW = 16;

    // The Arrow value width this layout writes (0: bits or variable width).
    private final int arrowWidth;

    FlatLayout(int arrowWidth)
    {
        this.arrowWidth = arrowWidth;
    }

    /**
     * Allocates {@code vector} for {@code rows} values (validity zeroed), refusing a vector this layout
     * does not write: the loops write raw memory, so a mismatch must fail here, not corrupt a buffer.
     */
    void allocate(FieldVector vector, int rows)
    {
        switch (this) {
            case BOOL:
                if (!(vector instanceof BitVector)) {
                    throw mismatch(vector);
                }
                ((BitVector) vector).allocateNew(rows);
                return;
            case VARBYTES:
                if (!(vector instanceof BaseVariableWidthVector)) {
                    throw mismatch(vector);
                }
                ((BaseVariableWidthVector) vector).allocateNew(Math.max(4096, rows * INITIAL_BYTES_PER_ROW), rows);
                return;
            case FIXED4:
            case FIXED8:
            case INT96:
            case DECIMAL:
                if (!(vector instanceof BaseFixedWidthVector) || ((BaseFixedWidthVector) vector).getTypeWidth() != arrowWidth) {
                    throw mismatch(vector);
                }
                ((BaseFixedWidthVector) vector).allocateNew(rows);
                return;
        }
        throw new IllegalStateException("Unknown layout " + this);
    }

    private IllegalStateException mismatch(FieldVector vector)
    {
        return new IllegalStateException("flat layout " + this + " cannot write a " + vector.getClass().getSimpleName());
    }
}
