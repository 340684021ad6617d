package dev.ferry.repartition;

import org.apache.spark.sql.types.DataType;

import java.io.Serializable;
import java.util.Arrays;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Where the device batches of one packed block lie in it: per batch its rows, per column its
 * name, type, null count and each Arrow buffer's offset and length in the block. Travels to the
 * driver and on to the reduce task that reads the block, so the block itself holds row data only.
 */
public record PieceLayout(List<BatchLayout> batches, long bytes)
        implements Serializable
{
    private static final long serialVersionUID = 1L;

    public PieceLayout
    {
        batches = List.copyOf(requireNonNull(batches, "batches is null"));
        if (bytes <= 0) {
            throw new IllegalArgumentException("a packed block has bytes: " + bytes);
        }
    }

    public long rows()
    {
        return batches.stream().mapToLong(BatchLayout::rows).sum();
    }

    /** One batch of the block. */
    public record BatchLayout(int rows, List<ColumnLayout> columns)
            implements Serializable
    {
        private static final long serialVersionUID = 1L;

        public BatchLayout
        {
            columns = List.copyOf(requireNonNull(columns, "columns is null"));
        }
    }

    /** One column of a batch: buffer i is {@code [offsets[i], offsets[i] + lengths[i])} of the block. */
    public record ColumnLayout(String name, DataType type, int nullCount, long[] offsets, long[] lengths)
            implements Serializable
    {
        private static final long serialVersionUID = 1L;

        public ColumnLayout
        {
            requireNonNull(name, "name is null");
            requireNonNull(type, "type is null");
            offsets = offsets.clone();
            lengths = lengths.clone();
            if (offsets.length != lengths.length) {
                throw new IllegalArgumentException(offsets.length + " offsets but " + lengths.length + " lengths for column " + name);
            }
        }

        @Override
        public boolean equals(Object other)
        {
            return other instanceof ColumnLayout that && name.equals(that.name) && type.equals(that.type) && nullCount == that.nullCount
                    && Arrays.equals(offsets, that.offsets) && Arrays.equals(lengths, that.lengths);
        }

        @Override
        public int hashCode()
        {
            return 31 * (31 * name.hashCode() + Arrays.hashCode(offsets)) + Arrays.hashCode(lengths);
        }

        @Override
        public String toString()
        {
            return name + " " + type.simpleString() + " nulls=" + nullCount + " offsets=" + Arrays.toString(offsets) + " lengths=" + Arrays.toString(lengths);
        }
    }
}
