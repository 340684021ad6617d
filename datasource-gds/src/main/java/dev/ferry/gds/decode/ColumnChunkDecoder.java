package dev.ferry.gds.decode;

import dev.ferry.gds.decode.cuda.DeviceChunkDecode;
import dev.ferry.gds.device.ArrowDeviceUpload;
import dev.ferry.gds.device.DeviceColumn;
import dev.ferry.gds.device.DeviceTarget;
import dev.ferry.gds.io.PageArrays;
import dev.ferry.gds.io.ResidentChunk;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.parquet.VersionParser;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.spark.sql.types.StructField;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The decode seam: turns one top-level column's chunks in a row group (its pages, in the memory the
 * I/O route put them in) into Arrow vectors (validity, offsets, values), batch by batch. It sees
 * only pages and writes only Arrow, so I/O and planning never know which implementation decodes.
 * {@link CpuColumnChunkDecoder} decodes on the CPU into heap-allocated Arrow buffers and reads
 * every column the reader accepts. A device decoder is a second implementation: it answers
 * {@link #supports} per chunk from the chunk's encodings and the column's shape
 * ({@link DeviceDecodeSupport} holds the rules: nested columns, DELTA_* and BYTE_STREAM_SPLIT are
 * refused with the reason), and the caller decodes a refused chunk through the CPU implementation,
 * counting the reason. Whatever decodes, the buffers have the layout the CPU decoder writes, so
 * the two can be compared byte for byte.
 *
 * <p>Calls come from one task thread: {@link #start} once per row group, then {@link #decode} or
 * {@link #decodeSelected} per batch, then {@link #checkExhausted}.
 */
public interface ColumnChunkDecoder
{
    /** The Spark column this decoder produces. */
    StructField field();

    /**
     * Whether this decoder writes the column's chunk in a row group whose chunks use
     * {@code encodings} (by column path) straight into device memory ({@link #decodeToDevice}), and
     * if not, why: the reason a caller counts when it decodes the chunk on the CPU and uploads it.
     */
    DecodeSupport deviceSupport(Map<ColumnPath, Set<Encoding>> encodings);

    /**
     * Whether this column can read a row group by row ranges (page-index skipping): only rows in the
     * ranges given to {@link #start} are decoded.
     */
    boolean canSkipRows(Map<ColumnPath, Set<Encoding>> encodings);

    /**
     * Starts a row group. Only rows within the inclusive ranges [{@code rangeFrom[i]}, {@code rangeTo[i]}]
     * are decoded; null ranges read every row (ranges need {@link #canSkipRows}). Page arrays the
     * decoder is done with go back to {@code pageArrays}.
     */
    void start(PageReadStore pages, VersionParser.ParsedVersion writerVersion, PageChecks checks, Map<ColumnPath, Set<Encoding>> encodings,
            long[] rangeFrom, long[] rangeTo, PageArrays pageArrays);

    /**
     * The path of the one chunk this decoder reads where a device route leaves it in device memory,
     * in a row group whose chunks use {@code encodings} and {@code codecs} (by column path); empty:
     * its chunks come through parquet-mr. For a path given, the reader reads that chunk with
     * {@code DeviceParquetDataSource.readResident} and calls {@link #startResident} instead of
     * {@link #start}. Depends only on the decoder's layout, fixed at construction, and its arguments
     * (it is asked on the prefetch thread too).
     */
    default Optional<ColumnPath> residentChunk(Map<ColumnPath, Set<Encoding>> encodings, Map<ColumnPath, CompressionCodecName> codecs)
    {
        return Optional.empty();
    }

    /**
     * Starts a row group whose chunk for this column sits in device memory ({@link #residentChunk}
     * said yes), compressed with {@code codec}: {@code valueCount} values as the footer says; {@code rowGroup} holds the row
     * group's other columns (its row count is this chunk's). The caller closes {@code chunk} after
     * this returns.
     */
    default void startResident(ResidentChunk chunk, CompressionCodecName codec, long valueCount, PageReadStore rowGroup, VersionParser.ParsedVersion writerVersion, PageChecks checks,
            Map<ColumnPath, Set<Encoding>> encodings, PageArrays pageArrays)
    {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " does not read chunks in device memory");
    }

    /**
     * The chunk {@link #start} or {@link #startResident} staged in device memory whose compressed
     * bodies wait for the row group's batched decompression: the reader decompresses every column's
     * in one batch per codec ({@link DeviceChunkDecode#decompressTogether}), then calls
     * {@link #completeStart}. Empty: nothing waits.
     */
    default Optional<DeviceChunkDecode> stagedChunk()
    {
        return Optional.empty();
    }

    /** Ends a start whose chunk was staged ({@link #stagedChunk}): decodes it, or gives it back to the CPU with the reason. */
    default void completeStart() {}

    /** Decodes the next {@code rows} rows into a new vector from {@code allocator}; the caller owns it. */
    FieldVector decode(int rows, BufferAllocator allocator, String timeZone, String file);

    /**
     * Decodes the next {@code rows} rows into Arrow buffers in {@code target}'s device memory, in the
     * layout {@link #decode} writes (validity, offsets, values; {@link ArrowDeviceUpload#lengths}),
     * enqueued on the target's stream; the caller synchronizes it and owns the buffers. Needs
     * {@link #deviceSupport} to have said yes for this row group. {@code staging} is host memory
     * an implementation may decode through.
     */
    DeviceColumn decodeToDevice(int rows, DeviceTarget target, BufferAllocator staging, String timeZone, String file);

    /**
     * Whether the last {@link #decodeToDevice} wrote the decoded bytes straight into device memory
     * (device kernels; the simulated backend's CPU decoder over device memory), rather than into host
     * memory and then a copy up: what the reader's decodedDeviceBytes and decodedHostBytes tell apart.
     */
    default boolean decodesIntoDeviceMemory()
    {
        return false;
    }

    /** Whether this row group's column can decode only selected rows ({@link #decodeSelected}). */
    boolean canDecodeSelected();

    /**
     * Late materialization: moves past the next {@code rows} rows but decodes only rows
     * {@code selected[0..count)} (ascending, relative to these rows) into a new vector of
     * {@code count} values. Needs {@link #canDecodeSelected}.
     */
    FieldVector decodeSelected(int rows, int[] selected, int count, BufferAllocator allocator, String timeZone, String file);

    /** At the end of a row group: refuses a column whose chunk still holds entries past the row group's last row. */
    void checkExhausted(String file, long rowGroupOffset);

    /** Where decoding is in this row group (page and offsets), for error messages. */
    String position();

    /** The column's leaf paths, for error messages. */
    List<String> leafPaths();

    /**
     * Frees what the decoder holds beyond the batches it handed out (the device decoder's chunk in
     * device memory); the reader calls it when it closes, also mid-row-group. Idempotent.
     */
    default void release() {}
}
