package dev.ferry.shuffle.format.append;

import org.apache.spark.sql.catalyst.expressions.SpecializedGetters;

/**
 * Appends one column of a row to the Arrow vector of an open map-side batch. Implementations for
 * flat types write straight into the vector's buffers by address; the rest delegate to Spark's own
 * Arrow field writer. Rows are appended at consecutive indexes from 0 until {@link #reset}.
 */
public abstract class ColumnAppender
{
    /** Appends {@code row}'s value at {@code ordinal} (maybe null) as value {@code index} of the vector. */
    public abstract void append(SpecializedGetters row, int ordinal, int index);

    /**
     * Appends the value at {@code ordinal} of {@code count} rows as values {@code firstIndex} on:
     * one column of a run of rows at a time, so that only this vector's buffers are touched while
     * it runs. Each implementation loops over its own {@link #append}, so the call is monomorphic.
     */
    public abstract void appendAll(SpecializedGetters[] rows, int count, int ordinal, int firstIndex);

    /** Sets the vector's value count to {@code rows} so it can be unloaded. */
    public abstract void finish(int rows);

    /** Empties the vector for the next batch, keeping its buffers. */
    public abstract void reset();

    /** Uncompressed bytes the vector holds for {@code rows} values so far. */
    public abstract long sizeInBytes(int rows);
}
