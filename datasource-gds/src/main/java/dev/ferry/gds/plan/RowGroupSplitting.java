package dev.ferry.gds.plan;

import dev.ferry.gds.GdsConfigKeys;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Whether the planner may split a row group larger than the split target into row spans read by
 * different tasks, and why not. Splitting needs the reader to select each span's pages from the
 * offset index, so a row group whose column chunks do not all have one is kept whole; it is off for
 * device decoding (the device kernels do not decode row ranges) and when
 * {@code spark.ferry.gds.plan.splitRowGroups} is false.
 */
public final class RowGroupSplitting
{
    static final String NO_OFFSET_INDEX = "a column chunk has no offset index";

    private final Optional<String> off;

    private RowGroupSplitting(Optional<String> off)
    {
        this.off = requireNonNull(off, "off is null");
    }

    public static RowGroupSplitting on()
    {
        return new RowGroupSplitting(Optional.empty());
    }

    /** No row group is split, for {@code reason} (said in the plan's counts). */
    public static RowGroupSplitting off(String reason)
    {
        return new RowGroupSplitting(Optional.of(requireNonNull(reason, "reason is null")));
    }

    /** Off when the setting says so, else on. */
    public static RowGroupSplitting fromSetting(boolean enabled)
    {
        return enabled ? on() : off(GdsConfigKeys.SPLIT_ROW_GROUPS.name() + "=false");
    }

    /** Why {@code block} cannot be split, or empty when it can. */
    Optional<String> refusal(BlockMetaData block)
    {
        if (off.isPresent()) {
            return off;
        }
        // Every chunk, projected or not: the footer alone cannot say which chunks the read schema maps to, and writers that
        // write offset indexes (parquet-mr since 1.11, Spark, parquet-cpp) write them for every column.
        for (ColumnChunkMetaData chunk : block.getColumns()) {
            if (chunk.getOffsetIndexReference() == null || chunk.getOffsetIndexReference().getLength() <= 0) {
                return Optional.of(NO_OFFSET_INDEX);
            }
        }
        return Optional.empty();
    }
}
