package dev.ferry.gds.decode;

import dev.ferry.gds.io.PageArrays;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.PageReader;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.EnumSet;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * The fast path for a top-level primitive column (no repetition, at most one definition level):
 * walks a column chunk page by page and batch by batch, handing each run of rows to the value loops.
 * The jobs are its parts: {@link PageSource} loads pages, {@link DefinitionLevels} decodes levels,
 * {@link DictionaryValues} the dictionary, {@link RowRangeSkipper} passes over rows outside the
 * page-index ranges, {@link PageValues} holds a page's encoded values, and {@link DenseValueLoops}
 * and {@link SelectedValueLoops} write them into the Arrow vector. Every part is a final class
 * fixed per column, so the per-value loops stay monomorphic.
 */
// Deprecated encodings (PLAIN_DICTIONARY, BIT_PACKED) still appear in files.
@SuppressWarnings("deprecation")
final class FlatLeafReader
{
    private static final Set<Encoding> SUPPORTED = EnumSet.of(Encoding.PLAIN, Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY, Encoding.RLE,
            // parquet-mr lists BIT_PACKED for levels whose maximum is 0, which are not stored at all.
            Encoding.BIT_PACKED,
            Encoding.DELTA_BINARY_PACKED, Encoding.DELTA_LENGTH_BYTE_ARRAY, Encoding.DELTA_BYTE_ARRAY, Encoding.BYTE_STREAM_SPLIT);

    private final boolean optional;
    private final FlatLayout layout;
    private final PageSource pages = new PageSource();
    private final DefinitionLevels levels;
    private final DictionaryValues dictionary;
    private final RowRangeSkipper ranges = new RowRangeSkipper();
    private final PageValues stream;
    private final StringStage stage = new StringStage();
    private final DenseValueLoops dense;
    private final SelectedValueLoops selectedLoops;
    private FieldVector vector;
    private int pageValues;
    private int pageCursor;

    FlatLeafReader(ColumnDescriptor descriptor, FlatLayout layout, long maxPageBytes)
    {
        requireNonNull(descriptor, "descriptor is null");
        this.layout = requireNonNull(layout, "layout is null");
        this.optional = descriptor.getMaxDefinitionLevel() == 1;
        RleHybridDecoder rle = new RleHybridDecoder();
        this.levels = new DefinitionLevels(rle);
        this.dictionary = new DictionaryValues(descriptor);
        this.stream = new PageValues(descriptor, layout, rle, maxPageBytes);
        this.dense = new DenseValueLoops(descriptor.getPrimitiveType().getPrimitiveTypeName(), layout, optional, stream, dictionary, stage);
        this.selectedLoops = new SelectedValueLoops(descriptor.getPrimitiveType().getPrimitiveTypeName(), layout, optional, stream, dictionary, stage);
    }

    /** Whether a column chunk with these encodings (values and levels) can take this path. */
    static boolean supports(ColumnDescriptor descriptor, Set<Encoding> chunkEncodings)
    {
        return descriptor.getMaxRepetitionLevel() == 0 && descriptor.getMaxDefinitionLevel() <= 1 && SUPPORTED.containsAll(chunkEncodings);
    }

    void start(PageReader pageReader, long[] rangeFrom, long[] rangeTo, PageArrays pageArrays)
    {
        pages.start(pageReader, pageArrays);
        ranges.start(rangeFrom, rangeTo);
        dictionary.load(pages.dictionaryPage());
        pageValues = 0;
        pageCursor = 0;
    }

    /** Binds a fresh vector for the next batch, sized for {@code rows} values (with zeroed validity). */
    void bind(FieldVector target, int rows)
    {
        layout.allocate(target, rows);
        this.vector = target;
        dense.bind(target);
        selectedLoops.bind(target);
    }

    /** Reads {@code rows} values into slots 0..rows-1 of the bound vector, returning how many the chunk had. */
    int read(int rows)
    {
        return read(rows, null, rows);
    }

    /**
     * Reads past the next {@code rows} rows but writes only the rows {@code selected[0..selectedCount)}
     * (ascending, relative to these rows) into slots 0..selectedCount-1 of the bound vector, or every
     * row when {@code selected} is null. Returns how many rows the chunk had.
     */
    int read(int rows, int[] selected, int selectedCount)
    {
        stage.reset();
        int done = 0;
        int nextSelected = 0;
        while (done < rows) {
            if (pageCursor == pageValues && !nextPage()) {
                break;
            }
            int count = Math.min(rows - done, pageValues - pageCursor);
            if (ranges.active()) {
                int gap = ranges.rowsToSkip(pageCursor, pageValues - pageCursor);
                if (gap > 0) {
                    skip(gap);
                    pageCursor += gap;
                    continue;
                }
                count = ranges.inRange(pageCursor, count);
            }
            int[] definitions = levels.levels();
            if (selected != null) {
                int end = nextSelected;
                while (end < selectedCount && selected[end] < done + count) {
                    end++;
                }
                selectedLoops.selective(definitions, pageCursor, done, count, selected, nextSelected, end);
                nextSelected = end;
                pageCursor += count;
                done += count;
                continue;
            }
            switch (stream.mode) {
                case PLAIN:
                    dense.plain(definitions, pageCursor, done, count);
                    break;
                case DICTIONARY:
                    dense.fromDictionary(definitions, pageCursor, done, count);
                    break;
                case RLE_BOOLEANS:
                    dense.rleBooleans(definitions, pageCursor, done, count);
                    break;
                case DELTA_LONGS:
                    dense.fromDecodedLongs(definitions, pageCursor, done, count);
                    break;
                case BYTE_ARRAYS:
                    dense.fromByteArrays(definitions, pageCursor, done, count);
                    break;
                case READER:
                    dense.fromReader(definitions, pageCursor, done, count);
                    break;
            }
            pageCursor += count;
            done += count;
        }
        int written = selected == null ? done : nextSelected;
        if (layout == FlatLayout.VARBYTES) {
            BaseVariableWidthVector variable = (BaseVariableWidthVector) vector;
            stage.flush(variable);
            if (written > 0) {
                variable.setLastSet(written - 1);
            }
        }
        vector.setValueCount(written);
        return done;
    }

    // Moves past the values of the next `count` rows of the page without writing them.
    private void skip(int count)
    {
        int present = count;
        if (stream.hasNulls) {
            int[] definitions = levels.levels();
            present = 0;
            for (int index = 0; index < count; index++) {
                present += definitions[pageCursor + index];
            }
        }
        stream.skip(present);
    }

    private boolean nextPage()
    {
        DataPage page = pages.next();
        if (page == null) {
            return false;
        }
        pageValues = page.getValueCount();
        pageCursor = 0;
        ranges.pageStarts(page);
        // Only optional columns have levels; the page's count was checked against its level runs (CheckedPageReader).
        if (page instanceof DataPageV1) {
            DataPageV1 v1 = (DataPageV1) page;
            ByteBuffer bytes = pages.pageBytes(v1.getBytes());
            if (optional) {
                levels.decodeV1(v1.getDlEncoding(), bytes, pageValues);
            }
            loadValues(v1.getValueEncoding(), bytes.slice().order(ByteOrder.LITTLE_ENDIAN));
        }
        else {
            DataPageV2 v2 = (DataPageV2) page;
            if (optional) {
                levels.decodeV2(definitionLevelBytes(v2), pageValues);
            }
            loadValues(v2.getDataEncoding(), pages.pageBytes(v2.getData()));
        }
        return true;
    }

    private static ByteBuffer definitionLevelBytes(DataPageV2 page)
    {
        try {
            return page.getDefinitionLevels().toByteBuffer();
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot read a data page", e);
        }
    }

    private void loadValues(Encoding encoding, ByteBuffer data)
    {
        int present = optional ? levels.present(pageValues) : pageValues;
        stream.load(encoding, data, present, pageValues, dictionary.present());
    }
}
