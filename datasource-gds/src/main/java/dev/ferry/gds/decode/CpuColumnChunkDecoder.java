package dev.ferry.gds.decode;

import dev.ferry.gds.device.ArrowDeviceUpload;
import dev.ferry.gds.device.DeviceColumn;
import dev.ferry.gds.device.DeviceTarget;
import dev.ferry.gds.io.PageArrays;
import dev.ferry.gds.parquet.CorruptParquetException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.parquet.VersionParser;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.impl.ColumnReaderImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.util.ArrowUtils;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * The CPU implementation of the decode seam: one top-level column's chunks in a row group (host
 * pages, through parquet-mr's page decoding for every encoding and codec) into host Arrow
 * vectors from the task's allocator, batch by batch. Flat columns whose type pair has a {@link FlatLayout} take
 * {@link FlatLeafReader}; everything else the shape nodes, fed by parquet-mr's column readers.
 */
public final class CpuColumnChunkDecoder
        implements ColumnChunkDecoder
{
    // ColumnReaderImpl needs a converter even though values are pulled with getInteger() and friends;
    // one that refuses every call makes an accidental push visible.
    private static final PrimitiveConverter NO_PUSH = new PrimitiveConverter() {};

    private final StructField field;
    private final ReadNode root;
    private final List<LeafNode> leaves;
    private final Optional<FlatLayout> flatLayout;
    private final List<ColumnReader> readers = new ArrayList<>();
    // This row group's checked page readers, one per leaf: where decoding is, for error messages.
    private final List<CheckedPageReader> checkedPages = new ArrayList<>();
    private long[][] consumed = new long[0][];
    private FlatLeafReader flat;
    // Kept across row groups so its level and index arrays are reused.
    private FlatLeafReader flatReader;
    // The Arrow field, built once rather than per batch.
    private Field arrowField;
    private String arrowTimeZone;

    CpuColumnChunkDecoder(StructField field, ReadNode root, List<LeafNode> leaves, Optional<FlatLayout> flatLayout)
    {
        this.field = requireNonNull(field, "field is null");
        this.root = requireNonNull(root, "root is null");
        this.leaves = List.copyOf(leaves);
        this.flatLayout = requireNonNull(flatLayout, "flatLayout is null");
    }

    @Override
    public StructField field()
    {
        return field;
    }

    /** The column's Parquet leaves (none for a column missing from the file), for a device decoder wrapping this one. */
    List<LeafNode> leaves()
    {
        return leaves;
    }

    /** The flat fast path's layout, when the column's type pair has one. */
    Optional<FlatLayout> flatLayout()
    {
        return flatLayout;
    }

    /**
     * The device rule every implementation applies ({@link DeviceDecodeSupport}), so the simulated
     * backend refuses, counts and falls back for the same chunks a CUDA decoder would.
     */
    @Override
    public DecodeSupport deviceSupport(Map<ColumnPath, Set<Encoding>> encodings)
    {
        return DeviceDecodeSupport.check(leaves, flatLayout, encodings);
    }

    /**
     * The CPU decoder writing into device memory: decodes into host buffers from {@code staging},
     * then copies each buffer to the device (one host-to-device crossing per buffer, counted by the
     * runtime). The host backend's device output; the simulated backend decodes into its device memory
     * instead ({@link SimulatedColumnChunkDecoder}).
     */
    @Override
    public DeviceColumn decodeToDevice(int rows, DeviceTarget target, BufferAllocator staging, String timeZone, String file)
    {
        if (flat == null && !leaves.isEmpty()) {
            throw new IllegalStateException("column " + field.name() + " is not decoded into device memory in this row group: "
                    + "its chunk takes the general path");
        }
        try (FieldVector host = decode(rows, staging, timeZone, file)) {
            return ArrowDeviceUpload.upload(host, field.dataType(), target);
        }
    }

    /**
     * Whether this column can read a row group by row ranges (page-index skipping): only the flat
     * path skips rows itself; parquet-mr's column readers would read the pages it is given as if they
     * were contiguous. A column missing from the file reads no pages at all.
     */
    @Override
    public boolean canSkipRows(Map<ColumnPath, Set<Encoding>> encodings)
    {
        if (leaves.isEmpty()) {
            return true;
        }
        if (flatLayout.isEmpty() || leaves.size() != 1) {
            return false;
        }
        LeafNode leaf = leaves.get(0);
        Set<Encoding> chunkEncodings = encodings.get(ColumnPath.get(leaf.descriptor.getPath()));
        return chunkEncodings != null && FlatLeafReader.supports(leaf.descriptor, chunkEncodings);
    }

    /**
     * Starts a row group: the flat fast path when the column is a top-level primitive whose chunk uses
     * only PLAIN and dictionary encodings ({@code encodings} by column path), else one parquet-mr column
     * reader per leaf. Only rows within the inclusive ranges [{@code rangeFrom[i]}, {@code rangeTo[i]}]
     * are decoded; null ranges read every row (ranges need {@link #canSkipRows}). The flat path gives
     * each data page's array back to {@code pageArrays} once it has moved past the page.
     */
    @Override
    public void start(PageReadStore pages, VersionParser.ParsedVersion writerVersion, PageChecks checks, Map<ColumnPath, Set<Encoding>> encodings,
            long[] rangeFrom, long[] rangeTo, PageArrays pageArrays)
    {
        String file = checks.file();
        readers.clear();
        checkedPages.clear();
        flat = null;
        if (flatLayout.isPresent() && leaves.size() == 1) {
            LeafNode leaf = leaves.get(0);
            Set<Encoding> chunkEncodings = encodings.get(ColumnPath.get(leaf.descriptor.getPath()));
            if (chunkEncodings != null && FlatLeafReader.supports(leaf.descriptor, chunkEncodings)) {
                PageReader pageReader = pages.getPageReader(leaf.descriptor);
                if (pageReader == null) {
                    throw new CorruptParquetException(file, "row group has no pages for column " + leaf.path);
                }
                if (flatReader == null) {
                    flatReader = new FlatLeafReader(leaf.descriptor, flatLayout.get(), checks.maxPageBytes());
                }
                flat = flatReader;
                flat.start(checked(checks, leaf, pageReader), rangeFrom, rangeTo, pageArrays);
                return;
            }
        }
        if (rangeFrom != null && !leaves.isEmpty()) {
            throw new IllegalStateException("column " + field.name() + " cannot read by row ranges");
        }
        consumed = new long[leaves.size()][1];
        for (LeafNode leaf : leaves) {
            PageReader pageReader = pages.getPageReader(leaf.descriptor);
            if (pageReader == null) {
                throw new CorruptParquetException(file, "row group has no pages for column " + leaf.path);
            }
            readers.add(new ColumnReaderImpl(leaf.descriptor, checked(checks, leaf, pageReader), NO_PUSH, writerVersion));
        }
    }

    /** Decodes the next {@code rows} rows into a new vector from {@code allocator}; the caller owns it. */
    @Override
    public FieldVector decode(int rows, BufferAllocator allocator, String timeZone, String file)
    {
        FieldVector vector = arrowField(timeZone).createVector(allocator);
        try {
            if (flat != null) {
                flat.bind(vector, rows);
                int read = flat.read(rows);
                if (read != rows) {
                    throw new CorruptParquetException(file, "column " + field.name() + " ends after " + read + " of " + rows
                            + " rows in this batch: fewer values than the row group's row count");
                }
                return vector;
            }
            vector.allocateNew();
            root.bind(vector);
            if (root instanceof MissingNode) {
                ((MissingNode) root).setRows(rows);
            }
            for (int index = 0; index < leaves.size(); index++) {
                LeafNode leaf = leaves.get(index);
                int read = leaf.read(readers.get(index), rows, consumed[index]);
                if (read != rows) {
                    throw new CorruptParquetException(file, "column " + leaf.path + " ends after " + read + " of " + rows
                            + " rows in this batch: fewer values than the row group's row count");
                }
            }
            root.finish();
            if (vector.getValueCount() != rows) {
                throw new CorruptParquetException(file, "column " + field.name() + " decoded " + vector.getValueCount() + " rows instead of " + rows);
            }
            return vector;
        }
        catch (RuntimeException e) {
            vector.close();
            throw e;
        }
    }

    /**
     * At the end of a row group: refuses a column whose parquet-mr readers still hold entries (rows past
     * the row group's row count). The flat path reads exactly one value per row, checked in the footer.
     */
    @Override
    @SuppressWarnings("deprecation") // getTotalValueCount: the chunk's count, which is what is compared
    public void checkExhausted(String file, long rowGroupOffset)
    {
        if (flat != null) {
            return;
        }
        for (int index = 0; index < readers.size(); index++) {
            long left = readers.get(index).getTotalValueCount() - consumed[index][0];
            if (left > 0) {
                throw new CorruptParquetException(file, "column " + leaves.get(index).path + " of the row group at offset " + rowGroupOffset + " has " + left
                        + " entries past the row group's last row");
            }
        }
    }

    /** Whether this row group's column takes the flat path, which can decode only selected rows ({@link #decodeSelected}). */
    @Override
    public boolean canDecodeSelected()
    {
        return flat != null;
    }

    /**
     * Late materialization: moves past the next {@code rows} rows but decodes only rows
     * {@code selected[0..count)} (ascending, relative to these rows) into a new vector of
     * {@code count} values. Needs {@link #canDecodeSelected}.
     */
    @Override
    public FieldVector decodeSelected(int rows, int[] selected, int count, BufferAllocator allocator, String timeZone, String file)
    {
        if (flat == null) {
            throw new IllegalStateException("column " + field.name() + " does not take the flat path");
        }
        FieldVector vector = arrowField(timeZone).createVector(allocator);
        try {
            flat.bind(vector, count);
            int read = flat.read(rows, selected, count);
            if (read != rows) {
                throw new CorruptParquetException(file, "column " + field.name() + " ends after " + read + " of " + rows
                        + " rows in this batch: fewer values than the row group's row count");
            }
            return vector;
        }
        catch (RuntimeException e) {
            vector.close();
            throw e;
        }
    }

    private Field arrowField(String timeZone)
    {
        if (arrowField == null || !timeZone.equals(arrowTimeZone)) {
            arrowField = ArrowUtils.toArrowField(field.name(), field.dataType(), field.nullable(), timeZone, false, Metadata.empty());
            arrowTimeZone = timeZone;
        }
        return arrowField;
    }

    private PageReader checked(PageChecks checks, LeafNode leaf, PageReader pages)
    {
        CheckedPageReader checked = checks.wrap(leaf.descriptor, pages);
        checkedPages.add(checked);
        return checked;
    }

    /** Where each leaf's decoding is in this row group (page and offsets), for error messages. */
    @Override
    public String position()
    {
        List<String> positions = new ArrayList<>();
        checkedPages.forEach(pages -> positions.add(pages.position()));
        return String.join("; ", positions);
    }

    /** The column's leaf paths, for error messages. */
    @Override
    public List<String> leafPaths()
    {
        List<String> paths = new ArrayList<>();
        leaves.forEach(leaf -> paths.add(leaf.path));
        return paths;
    }
}
