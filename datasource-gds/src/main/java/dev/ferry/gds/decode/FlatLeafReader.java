package dev.ferry.gds.decode;

import dev.ferry.gds.io.PageArrays;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.parquet.bytes.ByteBufferInputStream;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ValuesType;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.column.values.ValuesReader;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * The fast path for a top-level primitive column (no repetition, at most one definition level):
 * each page's levels and dictionary indexes are decoded in bulk, and values are written straight into
 * the Arrow vector's buffers by a loop specialised per physical type and encoding, with no call per
 * value: PLAIN fixed-width runs without nulls are one memory copy, strings go straight into the
 * offset and data buffers, booleans are unpacked from their bits. Other value encodings
 * (DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT) are decoded by
 * parquet-mr's values reader and written by the same loops. Pages still come from parquet-mr's page
 * reader, which decompresses them. Values that need a conversion (decimal widening) go through
 * {@link FlatTarget}'s per-value setters.
 */
// Deprecated encodings (PLAIN_DICTIONARY, BIT_PACKED) still appear in files; BytesInput.toByteBuffer() is
// deprecated only in favour of a variant that needs a buffer releaser, which heap-backed pages do not.
@SuppressWarnings("deprecation")
final class FlatLeafReader
{
    private static final Set<Encoding> SUPPORTED = EnumSet.of(Encoding.PLAIN, Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY, Encoding.RLE,
            // parquet-mr lists BIT_PACKED for levels whose maximum is 0, which are not stored at all.
            Encoding.BIT_PACKED,
            Encoding.DELTA_BINARY_PACKED, Encoding.DELTA_LENGTH_BYTE_ARRAY, Encoding.DELTA_BYTE_ARRAY, Encoding.BYTE_STREAM_SPLIT);

    private enum Mode
    {
        PLAIN,
        DICTIONARY,
        // Boolean values as an RLE/bit-packed run of 0/1 in `indexes` (data page v2 booleans).
        RLE_BOOLEANS,
        // Any other encoding, through parquet-mr's ValuesReader.
        READER,
    }

    private static final VarHandle LITTLE_ENDIAN_LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LITTLE_ENDIAN_INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long JULIAN_DAY_OF_EPOCH = 2_440_588;
    private static final long MICROS_PER_DAY = 86_400_000_000L;

    private final ColumnDescriptor descriptor;
    private final PrimitiveTypeName type;
    private final boolean optional;
    private final FlatTarget target;
    private final FlatTarget.Kind kind;
    private final RleHybridDecoder rle = new RleHybridDecoder();
    private PageReader pages;
    private PageArrays pageArrays;
    // The current data page's array, given back to pageArrays when the reader moves past the page.
    private byte[] pageArray;
    private boolean hasDictionary;
    // The dictionary decoded once per chunk, so each value is an array load rather than a call.
    private int[] dictionaryInts;
    private long[] dictionaryLongs;
    private float[] dictionaryFloats;
    private double[] dictionaryDoubles;
    private byte[][] dictionaryBytes;
    private int[] definitions = new int[0];
    private int[] indexes = new int[0];
    private int pageValues;
    private int pageCursor;
    private int valueCursor;
    private boolean pageHasNulls;
    private Mode mode;
    private ValuesReader valuesReader;
    private ByteBuffer values;
    // PLAIN booleans: the next value's bit in `values`.
    private long booleanBit;
    // Where the next string's bytes go in the bound variable-width vector.
    private int dataEnd;
    // A batch's string bytes are gathered here with System.arraycopy and moved into the Arrow data
    // buffer in one copy per batch: a heap-to-off-heap Unsafe copy per value cost more than the
    // bytes themselves for short strings (JFR: half of q3's decode time). Kept across batches.
    private byte[] stage = new byte[0];
    // Page-index skipping: the row group's rows to read as inclusive [from, to] ranges, ascending,
    // and the first row of the current page; null ranges read every row. Pages outside the ranges
    // never arrive, pages that straddle a range edge do, so rows outside the ranges are skipped
    // here and every column of the row group yields the same rows.
    private long[] rangeFrom;
    private long[] rangeTo;
    private int rangeIndex;
    private long pageFirstRow;

    FlatLeafReader(ColumnDescriptor descriptor, FlatTarget target)
    {
        this.descriptor = requireNonNull(descriptor, "descriptor is null");
        this.target = requireNonNull(target, "target is null");
        this.type = descriptor.getPrimitiveType().getPrimitiveTypeName();
        this.optional = descriptor.getMaxDefinitionLevel() == 1;
        this.kind = target.kind();
    }

    /** Whether a column chunk with these encodings (values and levels) can take this path. */
    static boolean supports(ColumnDescriptor descriptor, Set<Encoding> chunkEncodings)
    {
        return descriptor.getMaxRepetitionLevel() == 0 && descriptor.getMaxDefinitionLevel() <= 1 && SUPPORTED.containsAll(chunkEncodings);
    }

    void start(PageReader pageReader, long[] rangeFrom, long[] rangeTo, PageArrays pageArrays)
    {
        // The previous chunk's last page, if the reads stopped on its last value.
        givePageBack();
        this.pages = requireNonNull(pageReader, "pageReader is null");
        this.pageArrays = requireNonNull(pageArrays, "pageArrays is null");
        this.rangeFrom = rangeFrom;
        this.rangeTo = rangeTo;
        this.rangeIndex = 0;
        DictionaryPage page = pageReader.readDictionaryPage();
        dictionaryInts = null;
        dictionaryLongs = null;
        dictionaryFloats = null;
        dictionaryDoubles = null;
        dictionaryBytes = null;
        hasDictionary = page != null;
        if (page != null) {
            if ((type == PrimitiveTypeName.INT96 || type == PrimitiveTypeName.BINARY)
                    && (page.getEncoding() == Encoding.PLAIN_DICTIONARY || page.getEncoding() == Encoding.PLAIN)) {
                plainDictionary(page);
            }
            else {
                Dictionary dictionary;
                try {
                    dictionary = page.getEncoding().initDictionary(descriptor, page);
                }
                catch (IOException e) {
                    throw new UncheckedIOException("cannot read the dictionary page", e);
                }
                materializeDictionary(dictionary);
            }
        }
        pageValues = 0;
        pageCursor = 0;
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
        dataEnd = 0;
        int done = 0;
        int nextSelected = 0;
        while (done < rows) {
            if (pageCursor == pageValues && !nextPage()) {
                break;
            }
            int count = Math.min(rows - done, pageValues - pageCursor);
            if (rangeFrom != null) {
                long row = pageFirstRow + pageCursor;
                while (rangeIndex < rangeFrom.length && rangeTo[rangeIndex] < row) {
                    rangeIndex++;
                }
                if (rangeIndex == rangeFrom.length || row < rangeFrom[rangeIndex]) {
                    // Rows of this page before the next range (or after the last): skip their values.
                    long until = rangeIndex == rangeFrom.length ? Long.MAX_VALUE : rangeFrom[rangeIndex];
                    int gap = (int) Math.min(pageValues - pageCursor, until - row);
                    skip(gap);
                    pageCursor += gap;
                    continue;
                }
                count = (int) Math.min(count, rangeTo[rangeIndex] - row + 1);
            }
            if (selected != null) {
                int end = nextSelected;
                while (end < selectedCount && selected[end] < done + count) {
                    end++;
                }
                selective(done, count, selected, nextSelected, end);
                nextSelected = end;
                pageCursor += count;
                done += count;
                continue;
            }
            switch (mode) {
                case PLAIN:
                    plain(done, count);
                    break;
                case DICTIONARY:
                    fromDictionary(done, count);
                    break;
                case RLE_BOOLEANS:
                    rleBooleans(done, count);
                    break;
                case READER:
                    fromReader(done, count);
                    break;
            }
            pageCursor += count;
            done += count;
        }
        int written = selected == null ? done : nextSelected;
        if (kind == FlatTarget.Kind.VARBYTES) {
            BaseVariableWidthVector vector = (BaseVariableWidthVector) target.vector;
            flushStage(vector);
            if (written > 0) {
                vector.setLastSet(written - 1);
            }
        }
        target.vector.setValueCount(written);
        return done;
    }

    /**
     * Late materialization: walks the values of rows firstRow..firstRow+count-1 of the batch (the next
     * {@code count} of the page) and writes only those at {@code selected[from..to)}, each into slot
     * equal to its index in {@code selected}. One loop for every encoding and type, with a test per
     * row: it runs on the columns a pushed filter already thinned, where most rows are passed over.
     */
    private void selective(int firstRow, int count, int[] selected, int from, int to)
    {
        if (!pageHasNulls && mode != Mode.READER && !(mode == Mode.PLAIN && kind == FlatTarget.Kind.VARBYTES)) {
            gatherDense(firstRow, count, selected, from, to);
            return;
        }
        long data = target.vector.getDataBufferAddress();
        long validity = target.vector.getValidityBufferAddress();
        long offsets = kind == FlatTarget.Kind.VARBYTES ? ((BaseVariableWidthVector) target.vector).getOffsetBufferAddress() : 0;
        byte[] page = mode == Mode.PLAIN && kind != FlatTarget.Kind.BOOL ? values.array() : null;
        int position = page == null ? 0 : values.arrayOffset() + values.position();
        int limit = page == null ? 0 : values.arrayOffset() + values.limit();
        int cursor = valueCursor;
        int slot = from;
        int wanted = slot < to ? selected[slot] - firstRow : count;
        for (int index = 0; index < count; index++) {
            boolean write = index == wanted;
            boolean present = !pageHasNulls || definitions[pageCursor + index] != 0;
            if (present) {
                switch (mode) {
                    case PLAIN:
                        position = plainValue(page, position, limit, write, data, slot);
                        break;
                    case DICTIONARY:
                        if (write) {
                            dictionaryValue(indexes[cursor], data, slot);
                        }
                        cursor++;
                        break;
                    case RLE_BOOLEANS:
                        if (write && indexes[cursor] != 0) {
                            setBit(data, slot);
                        }
                        cursor++;
                        break;
                    case READER:
                        readerValue(write, data, slot);
                        break;
                }
            }
            if (write) {
                if (present) {
                    setBit(validity, slot);
                }
                if (offsets != 0) {
                    MemoryUtil.putInt(offsets + (long) (slot + 1) * 4, dataEnd);
                }
                slot++;
                wanted = slot < to ? selected[slot] - firstRow : count;
            }
        }
        valueCursor = cursor;
        if (page != null) {
            values.position(position - values.arrayOffset());
        }
    }

    /**
     * {@link #selective} for a page without nulls whose values can be addressed by row (fixed-width
     * PLAIN values, dictionary indexes, RLE booleans): each selected row's value is fetched directly,
     * so the cost follows the selected rows, not the page's.
     */
    private void gatherDense(int firstRow, int count, int[] selected, int from, int to)
    {
        long data = target.vector.getDataBufferAddress();
        if (mode == Mode.DICTIONARY || mode == Mode.RLE_BOOLEANS) {
            int[] ids = indexes;
            int base = valueCursor - firstRow;
            switch (mode == Mode.RLE_BOOLEANS ? FlatTarget.Kind.BOOL : kind) {
                case FIXED4: {
                    int[] dictionaryValues = type == PrimitiveTypeName.FLOAT ? floatBits() : dictionaryInts;
                    for (int slot = from; slot < to; slot++) {
                        MemoryUtil.putInt(data + (long) slot * 4, dictionaryValues[ids[base + selected[slot]]]);
                    }
                    break;
                }
                case FIXED8:
                case INT96: {
                    long[] dictionaryValues = type == PrimitiveTypeName.DOUBLE ? doubleBits() : dictionaryLongs;
                    for (int slot = from; slot < to; slot++) {
                        MemoryUtil.putLong(data + (long) slot * 8, dictionaryValues[ids[base + selected[slot]]]);
                    }
                    break;
                }
                case VARBYTES: {
                    long offsets = ((BaseVariableWidthVector) target.vector).getOffsetBufferAddress();
                    byte[][] dictionaryValues = dictionaryBytes;
                    for (int slot = from; slot < to; slot++) {
                        byte[] bytes = dictionaryValues[ids[base + selected[slot]]];
                        stage(bytes, 0, bytes.length);
                        MemoryUtil.putInt(offsets + (long) (slot + 1) * 4, dataEnd);
                    }
                    break;
                }
                case DECIMAL:
                    for (int slot = from; slot < to; slot++) {
                        int id = ids[base + selected[slot]];
                        putDecimal(data, slot, type == PrimitiveTypeName.INT32 ? dictionaryInts[id] : dictionaryLongs[id]);
                    }
                    break;
                case BOOL:
                    if (mode != Mode.RLE_BOOLEANS) {
                        throw new IllegalStateException("dictionary-encoded booleans");
                    }
                    for (int slot = from; slot < to; slot++) {
                        if (ids[base + selected[slot]] != 0) {
                            setBit(data, slot);
                        }
                    }
                    break;
            }
            valueCursor += count;
        }
        else if (kind == FlatTarget.Kind.BOOL) {
            byte[] bytes = values.array();
            int start = values.arrayOffset() + values.position();
            for (int slot = from; slot < to; slot++) {
                long bit = booleanBit + selected[slot] - firstRow;
                if (((bytes[start + (int) (bit >>> 3)] >>> (bit & 7)) & 1) != 0) {
                    setBit(data, slot);
                }
            }
            booleanBit += count;
        }
        else {
            int width = kind == FlatTarget.Kind.INT96 ? 12
                    : type == PrimitiveTypeName.INT32 || type == PrimitiveTypeName.FLOAT ? 4 : 8;
            long bytes = (long) count * width;
            if (bytes > values.remaining()) {
                throw new IllegalStateException(bytes + " value bytes wanted, " + values.remaining() + " left in the page");
            }
            byte[] page = values.array();
            int base = values.arrayOffset() + values.position() - firstRow * width;
            for (int slot = from; slot < to; slot++) {
                int position = base + selected[slot] * width;
                switch (kind) {
                    case FIXED4:
                        MemoryUtil.putInt(data + (long) slot * 4, (int) LITTLE_ENDIAN_INTS.get(page, position));
                        break;
                    case FIXED8:
                        MemoryUtil.putLong(data + (long) slot * 8, (long) LITTLE_ENDIAN_LONGS.get(page, position));
                        break;
                    case INT96:
                        MemoryUtil.putLong(data + (long) slot * 8, int96Micros((long) LITTLE_ENDIAN_LONGS.get(page, position), (int) LITTLE_ENDIAN_INTS.get(page, position + 8)));
                        break;
                    case DECIMAL:
                        putDecimal(data, slot, width == 4 ? (int) LITTLE_ENDIAN_INTS.get(page, position) : (long) LITTLE_ENDIAN_LONGS.get(page, position));
                        break;
                    default:
                        throw new IllegalStateException("No direct gather for " + kind);
                }
            }
            values.position(values.position() + (int) bytes);
        }
        if (to > from) {
            setBits(target.vector.getValidityBufferAddress(), from, to - from);
        }
    }

    // One PLAIN value at `position` of the page (booleans: the next bit), written to `slot` when `write`; returns the next position.
    private int plainValue(byte[] page, int position, int limit, boolean write, long data, int slot)
    {
        switch (kind) {
            case BOOL: {
                long bit = booleanBit++;
                if (write) {
                    int base = values.arrayOffset() + values.position();
                    if (((values.array()[base + (int) (bit >>> 3)] >>> (bit & 7)) & 1) != 0) {
                        setBit(data, slot);
                    }
                }
                return position;
            }
            case FIXED4:
                checkLeft(limit - position, 4);
                if (write) {
                    MemoryUtil.putInt(data + (long) slot * 4, (int) LITTLE_ENDIAN_INTS.get(page, position));
                }
                return position + 4;
            case FIXED8:
                checkLeft(limit - position, 8);
                if (write) {
                    MemoryUtil.putLong(data + (long) slot * 8, (long) LITTLE_ENDIAN_LONGS.get(page, position));
                }
                return position + 8;
            case INT96:
                checkLeft(limit - position, 12);
                if (write) {
                    MemoryUtil.putLong(data + (long) slot * 8, int96Micros((long) LITTLE_ENDIAN_LONGS.get(page, position), (int) LITTLE_ENDIAN_INTS.get(page, position + 8)));
                }
                return position + 12;
            case DECIMAL: {
                int width = type == PrimitiveTypeName.INT32 ? 4 : 8;
                checkLeft(limit - position, width);
                if (write) {
                    putDecimal(data, slot, width == 4 ? (int) LITTLE_ENDIAN_INTS.get(page, position) : (long) LITTLE_ENDIAN_LONGS.get(page, position));
                }
                return position + width;
            }
            case VARBYTES: {
                checkLeft(limit - position, 4);
                int length = (int) LITTLE_ENDIAN_INTS.get(page, position);
                position += 4;
                if (length < 0 || length > limit - position) {
                    throw new IllegalStateException("byte array of length " + length + " with " + (limit - position) + " bytes left in the page");
                }
                if (write) {
                    stage(page, position, length);
                }
                return position + length;
            }
        }
        throw new IllegalStateException("Unknown kind " + kind);
    }

    private static void checkLeft(int left, int width)
    {
        if (left < width) {
            throw new IllegalStateException("value of " + width + " bytes cut off with " + left + " bytes left in the page");
        }
    }

    // The dictionary entry `id` written to `slot`.
    private void dictionaryValue(int id, long data, int slot)
    {
        switch (kind) {
            case FIXED4:
                MemoryUtil.putInt(data + (long) slot * 4, type == PrimitiveTypeName.FLOAT ? floatBits()[id] : dictionaryInts[id]);
                return;
            case FIXED8:
            case INT96:
                MemoryUtil.putLong(data + (long) slot * 8, type == PrimitiveTypeName.DOUBLE ? doubleBits()[id] : dictionaryLongs[id]);
                return;
            case VARBYTES: {
                byte[] bytes = dictionaryBytes[id];
                stage(bytes, 0, bytes.length);
                return;
            }
            case DECIMAL:
                putDecimal(data, slot, type == PrimitiveTypeName.INT32 ? dictionaryInts[id] : dictionaryLongs[id]);
                return;
            case BOOL:
                throw new IllegalStateException("dictionary-encoded booleans");
        }
    }

    // The next value of parquet-mr's values reader, written to `slot` when `write` (read either way: the reader has no cheaper skip for all encodings).
    private void readerValue(boolean write, long data, int slot)
    {
        ValuesReader reader = valuesReader;
        switch (kind) {
            case FIXED4: {
                int value = type == PrimitiveTypeName.FLOAT ? Float.floatToRawIntBits(reader.readFloat()) : reader.readInteger();
                if (write) {
                    MemoryUtil.putInt(data + (long) slot * 4, value);
                }
                return;
            }
            case FIXED8: {
                long value = type == PrimitiveTypeName.DOUBLE ? Double.doubleToRawLongBits(reader.readDouble()) : reader.readLong();
                if (write) {
                    MemoryUtil.putLong(data + (long) slot * 8, value);
                }
                return;
            }
            case INT96: {
                Binary value = reader.readBytes();
                if (write) {
                    MemoryUtil.putLong(data + (long) slot * 8, int96Micros(value));
                }
                return;
            }
            case BOOL:
                if (reader.readBoolean() && write) {
                    setBit(data, slot);
                }
                return;
            case VARBYTES: {
                Binary value = reader.readBytes();
                if (write) {
                    stage(value.getBytesUnsafe(), 0, value.length());
                }
                return;
            }
            case DECIMAL: {
                long value = type == PrimitiveTypeName.INT32 ? reader.readInteger() : reader.readLong();
                if (write) {
                    putDecimal(data, slot, value);
                }
                return;
            }
        }
    }

    FlatTarget target()
    {
        return target;
    }

    // Moves past the values of the next `count` rows of the page without writing them.
    private void skip(int count)
    {
        int present = count;
        if (pageHasNulls) {
            present = 0;
            for (int index = 0; index < count; index++) {
                present += definitions[pageCursor + index];
            }
        }
        switch (mode) {
            case DICTIONARY:
            case RLE_BOOLEANS:
                valueCursor += present;
                return;
            case READER:
                valuesReader.skip(present);
                return;
            case PLAIN:
                break;
        }
        switch (kind) {
            case BOOL:
                booleanBit += present;
                return;
            case VARBYTES: {
                int position = values.position();
                for (int index = 0; index < present; index++) {
                    if (values.limit() - position < 4) {
                        throw new IllegalStateException("byte array length cut off with " + (values.limit() - position) + " bytes left in the page");
                    }
                    int length = values.getInt(position);
                    position += 4;
                    if (length < 0 || length > values.limit() - position) {
                        throw new IllegalStateException("byte array of length " + length + " with " + (values.limit() - position) + " bytes left in the page");
                    }
                    position += length;
                }
                values.position(position);
                return;
            }
            default: {
                int width = kind == FlatTarget.Kind.INT96 ? 12
                        : type == PrimitiveTypeName.INT32 || type == PrimitiveTypeName.FLOAT ? 4 : 8;
                long bytes = (long) present * width;
                if (bytes > values.remaining()) {
                    throw new IllegalStateException(bytes + " value bytes to skip, " + values.remaining() + " left in the page");
                }
                values.position(values.position() + (int) bytes);
            }
        }
    }

    private boolean present(int index)
    {
        return !optional || definitions[pageCursor + index] != 0;
    }

    private void markPresent(int firstRow, int count)
    {
        long validity = target.vector.getValidityBufferAddress();
        if (!pageHasNulls) {
            setBits(validity, firstRow, count);
            return;
        }
        for (int index = 0; index < count; index++) {
            if (definitions[pageCursor + index] != 0) {
                setBit(validity, firstRow + index);
            }
        }
    }

    private void plain(int firstRow, int count)
    {
        switch (kind) {
            case FIXED4:
            case FIXED8: {
                int width = kind == FlatTarget.Kind.FIXED4 ? 4 : 8;
                long data = target.vector.getDataBufferAddress();
                if (!pageHasNulls) {
                    copyValues(values, data + (long) firstRow * width, count * width);
                }
                else {
                    for (int index = 0; index < count; index++) {
                        if (definitions[pageCursor + index] != 0) {
                            copyValues(values, data + (long) (firstRow + index) * width, width);
                        }
                    }
                }
                markPresent(firstRow, count);
                return;
            }
            case BOOL: {
                long data = target.vector.getDataBufferAddress();
                int base = values.arrayOffset() + values.position();
                byte[] bytes = values.array();
                for (int index = 0; index < count; index++) {
                    if (present(index)) {
                        long bit = booleanBit++;
                        if (((bytes[base + (int) (bit >>> 3)] >>> (bit & 7)) & 1) != 0) {
                            setBit(data, firstRow + index);
                        }
                    }
                }
                markPresent(firstRow, count);
                return;
            }
            case VARBYTES: {
                BaseVariableWidthVector vector = (BaseVariableWidthVector) target.vector;
                long offsets = vector.getOffsetBufferAddress();
                byte[] page = values.array();
                int position = values.arrayOffset() + values.position();
                int limit = values.arrayOffset() + values.limit();
                for (int index = 0; index < count; index++) {
                    int row = firstRow + index;
                    if (present(index)) {
                        if (limit - position < 4) {
                            throw new IllegalStateException("byte array length cut off with " + (limit - position) + " bytes left in the page");
                        }
                        int length = (page[position] & 0xFF) | (page[position + 1] & 0xFF) << 8 | (page[position + 2] & 0xFF) << 16 | (page[position + 3] & 0xFF) << 24;
                        position += 4;
                        if (length < 0 || length > limit - position) {
                            throw new IllegalStateException("byte array of length " + length + " with " + (limit - position) + " bytes left in the page");
                        }
                        stage(page, position, length);
                        position += length;
                    }
                    MemoryUtil.putInt(offsets + (long) (row + 1) * 4, dataEnd);
                }
                values.position(position - values.arrayOffset());
                markPresent(firstRow, count);
                return;
            }
            case INT96: {
                // Read from the page array through little-endian views: the buffer's checked
                // getters and position updates per value cost more than the conversion.
                long data = target.vector.getDataBufferAddress();
                byte[] page = values.array();
                int position = values.arrayOffset() + values.position();
                int limit = values.arrayOffset() + values.limit();
                for (int index = 0; index < count; index++) {
                    if (present(index)) {
                        if (limit - position < 12) {
                            throw new IllegalStateException("INT96 value cut off with " + (limit - position) + " bytes left in the page");
                        }
                        long nanosOfDay = (long) LITTLE_ENDIAN_LONGS.get(page, position);
                        int julianDay = (int) LITTLE_ENDIAN_INTS.get(page, position + 8);
                        MemoryUtil.putLong(data + (long) (firstRow + index) * 8, int96Micros(nanosOfDay, julianDay));
                        position += 12;
                    }
                }
                values.position(position - values.arrayOffset());
                markPresent(firstRow, count);
                return;
            }
            case DECIMAL: {
                long data = target.vector.getDataBufferAddress();
                for (int index = 0; index < count; index++) {
                    if (present(index)) {
                        putDecimal(data, firstRow + index, type == PrimitiveTypeName.INT32 ? values.getInt() : values.getLong());
                    }
                }
                markPresent(firstRow, count);
                return;
            }
        }
    }

    // Arrow decimals are 16-byte little-endian two's complement: the value, then its sign extension.
    private static void putDecimal(long data, int row, long unscaled)
    {
        long address = data + (long) row * 16;
        MemoryUtil.putLong(address, unscaled);
        MemoryUtil.putLong(address + 8, unscaled >> 63);
    }

    private static long int96Micros(long nanosOfDay, int julianDay)
    {
        return (julianDay - JULIAN_DAY_OF_EPOCH) * MICROS_PER_DAY + nanosOfDay / 1000;
    }

    private static long int96Micros(Binary value)
    {
        if (value.length() != 12) {
            throw new IllegalStateException("INT96 value of " + value.length() + " bytes");
        }
        ByteBuffer bytes = value.toByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
        return int96Micros(bytes.getLong(bytes.position()), bytes.getInt(bytes.position() + 8));
    }

    private void fromDictionary(int firstRow, int count)
    {
        long data = target.vector.getDataBufferAddress();
        int cursor = valueCursor;
        int[] ids = indexes;
        // Pages without nulls (the common case) take loops with no definition-level test.
        boolean dense = !pageHasNulls;
        switch (kind) {
            case FIXED4: {
                int[] dictionaryValues = type == PrimitiveTypeName.FLOAT ? floatBits() : dictionaryInts;
                long address = data + (long) firstRow * 4;
                if (dense) {
                    for (int index = 0; index < count; index++) {
                        MemoryUtil.putInt(address + (long) index * 4, dictionaryValues[ids[cursor + index]]);
                    }
                    cursor += count;
                }
                else {
                    for (int index = 0; index < count; index++) {
                        if (definitions[pageCursor + index] != 0) {
                            MemoryUtil.putInt(address + (long) index * 4, dictionaryValues[ids[cursor++]]);
                        }
                    }
                }
                break;
            }
            case FIXED8:
            case INT96: {
                long[] dictionaryValues = type == PrimitiveTypeName.DOUBLE ? doubleBits() : dictionaryLongs;
                long address = data + (long) firstRow * 8;
                if (dense) {
                    for (int index = 0; index < count; index++) {
                        MemoryUtil.putLong(address + (long) index * 8, dictionaryValues[ids[cursor + index]]);
                    }
                    cursor += count;
                }
                else {
                    for (int index = 0; index < count; index++) {
                        if (definitions[pageCursor + index] != 0) {
                            MemoryUtil.putLong(address + (long) index * 8, dictionaryValues[ids[cursor++]]);
                        }
                    }
                }
                break;
            }
            case VARBYTES: {
                BaseVariableWidthVector vector = (BaseVariableWidthVector) target.vector;
                long offsets = vector.getOffsetBufferAddress() + (long) (firstRow + 1) * 4;
                byte[][] dictionaryValues = dictionaryBytes;
                for (int index = 0; index < count; index++) {
                    if (dense || definitions[pageCursor + index] != 0) {
                        byte[] bytes = dictionaryValues[ids[cursor++]];
                        stage(bytes, 0, bytes.length);
                    }
                    MemoryUtil.putInt(offsets + (long) index * 4, dataEnd);
                }
                break;
            }
            case DECIMAL:
                for (int index = 0; index < count; index++) {
                    if (present(index)) {
                        int id = ids[cursor++];
                        putDecimal(data, firstRow + index, type == PrimitiveTypeName.INT32 ? dictionaryInts[id] : dictionaryLongs[id]);
                    }
                }
                break;
            case BOOL:
                throw new IllegalStateException("dictionary-encoded booleans");
        }
        valueCursor = cursor;
        markPresent(firstRow, count);
    }

    // FLOAT and DOUBLE dictionaries as raw bits, built once per chunk, so their loops are the integer ones.
    private int[] floatBits()
    {
        if (dictionaryInts == null) {
            dictionaryInts = new int[dictionaryFloats.length];
            for (int id = 0; id < dictionaryFloats.length; id++) {
                dictionaryInts[id] = Float.floatToRawIntBits(dictionaryFloats[id]);
            }
        }
        return dictionaryInts;
    }

    private long[] doubleBits()
    {
        if (dictionaryLongs == null) {
            dictionaryLongs = new long[dictionaryDoubles.length];
            for (int id = 0; id < dictionaryDoubles.length; id++) {
                dictionaryLongs[id] = Double.doubleToRawLongBits(dictionaryDoubles[id]);
            }
        }
        return dictionaryLongs;
    }

    private void rleBooleans(int firstRow, int count)
    {
        long data = target.vector.getDataBufferAddress();
        int cursor = valueCursor;
        for (int index = 0; index < count; index++) {
            if (present(index)) {
                if (indexes[cursor++] != 0) {
                    setBit(data, firstRow + index);
                }
            }
        }
        valueCursor = cursor;
        markPresent(firstRow, count);
    }

    private void fromReader(int firstRow, int count)
    {
        ValuesReader reader = valuesReader;
        long data = target.vector.getDataBufferAddress();
        switch (kind) {
            case FIXED4:
                for (int index = 0; index < count; index++) {
                    if (present(index)) {
                        int value = type == PrimitiveTypeName.FLOAT ? Float.floatToRawIntBits(reader.readFloat()) : reader.readInteger();
                        MemoryUtil.putInt(data + (long) (firstRow + index) * 4, value);
                    }
                }
                break;
            case FIXED8:
                for (int index = 0; index < count; index++) {
                    if (present(index)) {
                        long value = type == PrimitiveTypeName.DOUBLE ? Double.doubleToRawLongBits(reader.readDouble()) : reader.readLong();
                        MemoryUtil.putLong(data + (long) (firstRow + index) * 8, value);
                    }
                }
                break;
            case INT96:
                for (int index = 0; index < count; index++) {
                    if (present(index)) {
                        MemoryUtil.putLong(data + (long) (firstRow + index) * 8, int96Micros(reader.readBytes()));
                    }
                }
                break;
            case BOOL:
                for (int index = 0; index < count; index++) {
                    if (present(index) && reader.readBoolean()) {
                        setBit(data, firstRow + index);
                    }
                }
                break;
            case VARBYTES: {
                BaseVariableWidthVector vector = (BaseVariableWidthVector) target.vector;
                long offsets = vector.getOffsetBufferAddress();
                for (int index = 0; index < count; index++) {
                    if (present(index)) {
                        Binary value = reader.readBytes();
                        byte[] bytes = value.getBytesUnsafe();
                        stage(bytes, 0, value.length());
                    }
                    MemoryUtil.putInt(offsets + (long) (firstRow + index + 1) * 4, dataEnd);
                }
                break;
            }
            case DECIMAL:
                for (int index = 0; index < count; index++) {
                    if (present(index)) {
                        putDecimal(data, firstRow + index, type == PrimitiveTypeName.INT32 ? reader.readInteger() : reader.readLong());
                    }
                }
                break;
        }
        markPresent(firstRow, count);
    }

    private void stage(byte[] bytes, int offset, int length)
    {
        int end = dataEnd + length;
        if (end > stage.length) {
            if (end < 0) {
                throw new IllegalStateException("more than 2 GiB of string bytes in one batch");
            }
            stage = Arrays.copyOf(stage, (int) Math.min(Integer.MAX_VALUE - 8, Math.max((long) end, 2L * stage.length + 1024)));
        }
        System.arraycopy(bytes, offset, stage, dataEnd, length);
        dataEnd = end;
    }

    // Moves the batch's staged string bytes into the vector's data buffer (grown to fit) in one copy.
    private void flushStage(BaseVariableWidthVector vector)
    {
        if (dataEnd == 0) {
            return;
        }
        if (dataEnd > vector.getDataBuffer().capacity()) {
            vector.reallocDataBuffer(dataEnd);
        }
        MemoryUtil.copyToMemory(stage, 0, vector.getDataBufferAddress(), dataEnd);
    }

    private static void copyValues(ByteBuffer source, long address, int bytes)
    {
        if (bytes > source.remaining()) {
            throw new IllegalStateException(bytes + " value bytes wanted, " + source.remaining() + " left in the page");
        }
        if (source.hasArray()) {
            MemoryUtil.copyToMemory(source.array(), source.arrayOffset() + source.position(), address, bytes);
        }
        else {
            MemoryUtil.copyMemory(MemoryUtil.getByteBufferAddress(source) + source.position(), address, bytes);
        }
        source.position(source.position() + bytes);
    }

    private static void setBit(long address, int index)
    {
        long byteAddress = address + (index >>> 3);
        MemoryUtil.putByte(byteAddress, (byte) (MemoryUtil.getByte(byteAddress) | (1 << (index & 7))));
    }

    private static void setBits(long address, int first, int count)
    {
        int index = first;
        int end = first + count;
        while (index < end && (index & 7) != 0) {
            setBit(address, index++);
        }
        if (end - index >= 8) {
            // Word stores, not Unsafe.setMemory: for the few hundred bytes of a batch's bitmap its
            // native call cost more than the stores (JFR: an eighth of a filtered scan's task time).
            int bytes = (end - index) >>> 3;
            long at = address + (index >>> 3);
            long stop = at + bytes;
            for (; at + 8 <= stop; at += 8) {
                MemoryUtil.putLong(at, -1L);
            }
            for (; at < stop; at++) {
                MemoryUtil.putByte(at, (byte) -1);
            }
            index += bytes << 3;
        }
        while (index < end) {
            setBit(address, index++);
        }
    }

    /**
     * INT96 and BINARY dictionaries straight from the PLAIN dictionary page into the arrays the loops
     * read, without parquet-mr's Binary object per entry: INT96 entries are 12 bytes each, BINARY
     * entries a 4-byte little-endian length and the bytes.
     */
    // BytesInput.toByteBuffer() is deprecated only for a variant with a releaser, which heap pages do not need.
    @SuppressWarnings("deprecation")
    private void plainDictionary(DictionaryPage page)
    {
        int size = page.getDictionarySize();
        ByteBuffer buffer;
        try {
            buffer = heap(page.getBytes().toByteBuffer());
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot read the dictionary page", e);
        }
        byte[] bytes = buffer.array();
        int position = buffer.arrayOffset() + buffer.position();
        int limit = buffer.arrayOffset() + buffer.limit();
        if (size < 0) {
            throw new IllegalStateException("dictionary page of " + size + " entries");
        }
        if (type == PrimitiveTypeName.INT96) {
            if ((long) size * 12 > limit - position) {
                throw new IllegalStateException("dictionary of " + size + " INT96 entries in a page of " + (limit - position) + " bytes");
            }
            dictionaryLongs = new long[size];
            for (int id = 0; id < size; id++) {
                int offset = position + id * 12;
                dictionaryLongs[id] = int96Micros((long) LITTLE_ENDIAN_LONGS.get(bytes, offset), (int) LITTLE_ENDIAN_INTS.get(bytes, offset + 8));
            }
            return;
        }
        byte[][] entries = new byte[size][];
        for (int id = 0; id < size; id++) {
            if (limit - position < 4) {
                throw new IllegalStateException("dictionary entry " + id + " of " + size + " cut off with " + (limit - position) + " bytes left in the page");
            }
            int length = (int) LITTLE_ENDIAN_INTS.get(bytes, position);
            position += 4;
            if (length < 0 || length > limit - position) {
                throw new IllegalStateException("dictionary entry of length " + length + " with " + (limit - position) + " bytes left in the page");
            }
            entries[id] = Arrays.copyOfRange(bytes, position, position + length);
            position += length;
        }
        dictionaryBytes = entries;
    }

    private void materializeDictionary(Dictionary dictionary)
    {
        int size = dictionary.getMaxId() + 1;
        switch (type) {
            case INT32:
                dictionaryInts = new int[size];
                for (int id = 0; id < size; id++) {
                    dictionaryInts[id] = dictionary.decodeToInt(id);
                }
                return;
            case INT64:
                dictionaryLongs = new long[size];
                for (int id = 0; id < size; id++) {
                    dictionaryLongs[id] = dictionary.decodeToLong(id);
                }
                return;
            case FLOAT:
                dictionaryFloats = new float[size];
                for (int id = 0; id < size; id++) {
                    dictionaryFloats[id] = dictionary.decodeToFloat(id);
                }
                return;
            case DOUBLE:
                dictionaryDoubles = new double[size];
                for (int id = 0; id < size; id++) {
                    dictionaryDoubles[id] = dictionary.decodeToDouble(id);
                }
                return;
            case BINARY:
                dictionaryBytes = new byte[size][];
                for (int id = 0; id < size; id++) {
                    Binary value = dictionary.decodeToBinary(id);
                    dictionaryBytes[id] = value.getBytes();
                }
                return;
            case INT96:
                dictionaryLongs = new long[size];
                for (int id = 0; id < size; id++) {
                    dictionaryLongs[id] = int96Micros(dictionary.decodeToBinary(id));
                }
                return;
            case BOOLEAN:
            case FIXED_LEN_BYTE_ARRAY:
                throw new IllegalStateException("No flat dictionary path for " + descriptor);
        }
    }

    // Every value of the current page has been read (values are copied out, never referenced), so its array may hold the next page.
    private void givePageBack()
    {
        if (pageArray != null) {
            pageArrays.giveBack(pageArray);
            pageArray = null;
        }
    }

    private boolean nextPage()
    {
        givePageBack();
        DataPage page = pages.readPage();
        if (page == null) {
            return false;
        }
        pageValues = page.getValueCount();
        pageCursor = 0;
        if (rangeFrom != null) {
            if (page.getFirstRowIndex().isEmpty()) {
                throw new IllegalStateException("a page of a row group read by row ranges has no first row index");
            }
            pageFirstRow = page.getFirstRowIndex().get();
        }
        valueCursor = 0;
        // Only optional columns have levels; the page's count was checked against its level runs (CheckedPageReader).
        if (optional && definitions.length < pageValues) {
            definitions = new int[pageValues];
        }
        try {
            if (page instanceof DataPageV1) {
                loadV1((DataPageV1) page);
            }
            else {
                loadV2((DataPageV2) page);
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot read a data page", e);
        }
        return true;
    }

    private void loadV1(DataPageV1 page)
            throws IOException
    {
        ByteBuffer bytes = heap(page.getBytes().toByteBuffer()).order(ByteOrder.LITTLE_ENDIAN);
        pageArray = bytes.array();
        if (optional) {
            if (page.getDlEncoding() == Encoding.BIT_PACKED) {
                loadBitPackedLevels(bytes);
                loadValues(page.getValueEncoding(), bytes.slice().order(ByteOrder.LITTLE_ENDIAN));
                return;
            }
            if (page.getDlEncoding() != Encoding.RLE) {
                throw new IllegalStateException("definition levels encoded " + page.getDlEncoding());
            }
            int length = bytes.getInt();
            if (length < 0 || length > bytes.remaining()) {
                throw new IllegalStateException("definition levels of " + length + " bytes in a page with " + bytes.remaining() + " left");
            }
            ByteBuffer levels = bytes.slice().order(ByteOrder.LITTLE_ENDIAN);
            levels.limit(length);
            rle.decode(levels, 1, pageValues, definitions);
            bytes.position(bytes.position() + length);
        }
        loadValues(page.getValueEncoding(), bytes.slice().order(ByteOrder.LITTLE_ENDIAN));
    }

    // The deprecated BIT_PACKED level encoding: one bit per level, most significant bit first, no length prefix.
    private void loadBitPackedLevels(ByteBuffer bytes)
    {
        int length = (pageValues + 7) / 8;
        if (length > bytes.remaining()) {
            throw new IllegalStateException("bit-packed definition levels need " + length + " bytes, the page has " + bytes.remaining());
        }
        for (int index = 0; index < pageValues; index++) {
            definitions[index] = (bytes.get(bytes.position() + index / 8) >> (7 - index % 8)) & 1;
        }
        bytes.position(bytes.position() + length);
    }

    private void loadV2(DataPageV2 page)
            throws IOException
    {
        if (optional) {
            rle.decode(page.getDefinitionLevels().toByteBuffer().order(ByteOrder.LITTLE_ENDIAN), 1, pageValues, definitions);
        }
        ByteBuffer data = heap(page.getData().toByteBuffer()).order(ByteOrder.LITTLE_ENDIAN);
        pageArray = data.array();
        loadValues(page.getDataEncoding(), data);
    }

    // The loops index page bytes as an array; pages parquet-mr decompressed are heap buffers already.
    private static ByteBuffer heap(ByteBuffer buffer)
    {
        if (buffer.hasArray()) {
            return buffer;
        }
        ByteBuffer copy = ByteBuffer.allocate(buffer.remaining());
        copy.put(buffer.duplicate());
        copy.flip();
        return copy;
    }

    private void loadValues(Encoding encoding, ByteBuffer data)
            throws IOException
    {
        int present = pageValues;
        if (optional) {
            present = 0;
            for (int index = 0; index < pageValues; index++) {
                if (definitions[index] > 1) {
                    throw new IllegalStateException("definition level " + definitions[index] + " above the maximum 1");
                }
                present += definitions[index];
            }
        }
        pageHasNulls = present != pageValues;
        valuesReader = null;
        switch (encoding) {
            case PLAIN:
                mode = Mode.PLAIN;
                values = data;
                booleanBit = 0;
                if (type == PrimitiveTypeName.BOOLEAN && (present + 7) / 8 > data.remaining()) {
                    throw new IllegalStateException(present + " booleans need " + (present + 7) / 8 + " bytes, the page has " + data.remaining());
                }
                return;
            case PLAIN_DICTIONARY:
            case RLE_DICTIONARY: {
                if (!hasDictionary) {
                    throw new IllegalStateException("dictionary-encoded page without a dictionary page");
                }
                mode = Mode.DICTIONARY;
                ensureIndexes(present);
                int bitWidth = present == 0 ? 0 : data.get() & 0xFF;
                // An index outside the dictionary fails on the dictionary array's bounds check.
                rle.decode(data, bitWidth, present, indexes);
                return;
            }
            case RLE:
                if (type == PrimitiveTypeName.BOOLEAN) {
                    mode = Mode.RLE_BOOLEANS;
                    ensureIndexes(present);
                    int length = data.getInt();
                    if (length < 0 || length > data.remaining()) {
                        throw new IllegalStateException("RLE booleans of " + length + " bytes in a page with " + data.remaining() + " left");
                    }
                    ByteBuffer runs = data.slice().order(ByteOrder.LITTLE_ENDIAN);
                    runs.limit(length);
                    rle.decode(runs, 1, present, indexes);
                    return;
                }
                // Fall through to parquet-mr, which refuses what it cannot read.
            default:
                mode = Mode.READER;
                valuesReader = encoding.getValuesReader(descriptor, ValuesType.VALUES);
                valuesReader.initFromPage(present, ByteBufferInputStream.wrap(data));
        }
    }

    private void ensureIndexes(int present)
    {
        if (indexes.length < present) {
            indexes = new int[present];
        }
    }
}
