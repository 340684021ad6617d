package dev.ferry.gds.decode;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.EnumSet;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * The fast path for a top-level primitive column (no repetition, at most one definition level) whose
 * values are PLAIN or dictionary encoded: each page's levels and indexes are decoded in bulk and its
 * values moved with one call per value, instead of parquet-mr's per-value column reader. Pages still
 * come from parquet-mr's page reader, which decompresses them.
 */
// Deprecated encodings (PLAIN_DICTIONARY, BIT_PACKED) still appear in files; BytesInput.toByteBuffer() is
// deprecated only in favour of a variant that needs a buffer releaser, which heap-backed pages do not.
@SuppressWarnings("deprecation")
final class FlatLeafReader
{
    private static final Set<Encoding> SUPPORTED = EnumSet.of(Encoding.PLAIN, Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY, Encoding.RLE,
            // parquet-mr lists BIT_PACKED for levels whose maximum is 0, which are not stored at all.
            Encoding.BIT_PACKED);

    private final ColumnDescriptor descriptor;
    private final FlatTarget target;
    private final RleHybridDecoder rle = new RleHybridDecoder();
    private PageReader pages;
    private Dictionary dictionary;
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
    private boolean dictionaryEncoded;
    private ByteBuffer values;

    FlatLeafReader(ColumnDescriptor descriptor, FlatTarget target)
    {
        this.descriptor = requireNonNull(descriptor, "descriptor is null");
        this.target = requireNonNull(target, "target is null");
    }

    /** Whether a column chunk with these encodings (values and levels) can take this path. */
    static boolean supports(ColumnDescriptor descriptor, Set<Encoding> chunkEncodings)
    {
        return descriptor.getMaxRepetitionLevel() == 0 && descriptor.getMaxDefinitionLevel() <= 1 && SUPPORTED.containsAll(chunkEncodings);
    }

    void start(PageReader pageReader)
    {
        this.pages = requireNonNull(pageReader, "pageReader is null");
        DictionaryPage page = pageReader.readDictionaryPage();
        try {
            dictionary = page == null ? null : page.getEncoding().initDictionary(descriptor, page);
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot read the dictionary page", e);
        }
        if (dictionary != null) {
            materializeDictionary();
        }
        pageValues = 0;
        pageCursor = 0;
    }

    /** Reads {@code rows} values into slots 0..rows-1 of the bound vector, returning how many the chunk had. */
    int read(int rows)
    {
        int done = 0;
        while (done < rows) {
            if (pageCursor == pageValues && !nextPage()) {
                break;
            }
            int count = Math.min(rows - done, pageValues - pageCursor);
            if (dictionaryEncoded) {
                fromDictionary(done, count);
            }
            else {
                plain(done, count);
            }
            pageCursor += count;
            done += count;
        }
        target.vector.setValueCount(done);
        return done;
    }

    FlatTarget target()
    {
        return target;
    }

    private void plain(int firstRow, int count)
    {
        PrimitiveTypeName type = descriptor.getPrimitiveType().getPrimitiveTypeName();
        boolean optional = descriptor.getMaxDefinitionLevel() == 1;
        for (int index = 0; index < count; index++) {
            if (optional && definitions[pageCursor + index] == 0) {
                continue;
            }
            int row = firstRow + index;
            switch (type) {
                case INT32:
                    target.setInt(row, values.getInt());
                    break;
                case INT64:
                    target.setLong(row, values.getLong());
                    break;
                case FLOAT:
                    target.setFloat(row, values.getFloat());
                    break;
                case DOUBLE:
                    target.setDouble(row, values.getDouble());
                    break;
                case BINARY:
                    int length = values.getInt();
                    if (length < 0 || length > values.remaining()) {
                        throw new IllegalStateException("byte array of length " + length + " with " + values.remaining() + " bytes left in the page");
                    }
                    target.setBytes(row, values, values.position(), length);
                    values.position(values.position() + length);
                    break;
                case BOOLEAN:
                case INT96:
                case FIXED_LEN_BYTE_ARRAY:
                    throw new IllegalStateException("No flat path for " + type);
            }
        }
    }

    private void fromDictionary(int firstRow, int count)
    {
        PrimitiveTypeName type = descriptor.getPrimitiveType().getPrimitiveTypeName();
        boolean optional = descriptor.getMaxDefinitionLevel() == 1;
        for (int index = 0; index < count; index++) {
            if (optional && definitions[pageCursor + index] == 0) {
                continue;
            }
            int row = firstRow + index;
            int id = indexes[valueCursor++];
            switch (type) {
                case INT32:
                    target.setInt(row, dictionaryInts[id]);
                    break;
                case INT64:
                    target.setLong(row, dictionaryLongs[id]);
                    break;
                case FLOAT:
                    target.setFloat(row, dictionaryFloats[id]);
                    break;
                case DOUBLE:
                    target.setDouble(row, dictionaryDoubles[id]);
                    break;
                case BINARY:
                    byte[] bytes = dictionaryBytes[id];
                    target.setBytes(row, ByteBuffer.wrap(bytes), 0, bytes.length);
                    break;
                case BOOLEAN:
                case INT96:
                case FIXED_LEN_BYTE_ARRAY:
                    throw new IllegalStateException("No flat path for " + type);
            }
        }
    }

    private void materializeDictionary()
    {
        int size = dictionary.getMaxId() + 1;
        switch (descriptor.getPrimitiveType().getPrimitiveTypeName()) {
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
            case BOOLEAN:
            case INT96:
            case FIXED_LEN_BYTE_ARRAY:
                throw new IllegalStateException("No flat path for " + descriptor);
        }
    }

    private boolean nextPage()
    {
        DataPage page = pages.readPage();
        if (page == null) {
            return false;
        }
        pageValues = page.getValueCount();
        pageCursor = 0;
        valueCursor = 0;
        if (definitions.length < pageValues) {
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
        ByteBuffer bytes = page.getBytes().toByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
        if (descriptor.getMaxDefinitionLevel() == 1) {
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
        if (descriptor.getMaxDefinitionLevel() == 1) {
            rle.decode(page.getDefinitionLevels().toByteBuffer().order(ByteOrder.LITTLE_ENDIAN), 1, pageValues, definitions);
        }
        loadValues(page.getDataEncoding(), page.getData().toByteBuffer().order(ByteOrder.LITTLE_ENDIAN));
    }

    private void loadValues(Encoding encoding, ByteBuffer data)
    {
        int present = pageValues;
        if (descriptor.getMaxDefinitionLevel() == 1) {
            present = 0;
            for (int index = 0; index < pageValues; index++) {
                if (definitions[index] > 1) {
                    throw new IllegalStateException("definition level " + definitions[index] + " above the maximum 1");
                }
                present += definitions[index];
            }
        }
        switch (encoding) {
            case PLAIN:
                dictionaryEncoded = false;
                values = data;
                return;
            case PLAIN_DICTIONARY:
            case RLE_DICTIONARY:
                if (dictionary == null) {
                    throw new IllegalStateException("dictionary-encoded page without a dictionary page");
                }
                dictionaryEncoded = true;
                if (indexes.length < present) {
                    indexes = new int[present];
                }
                int bitWidth = present == 0 ? 0 : data.get() & 0xFF;
                rle.decode(data, bitWidth, present, indexes);
                return;
            default:
                throw new IllegalStateException("values encoded " + encoding + " on the flat path");
        }
    }
}
