package dev.ferry.gds.decode;

import org.apache.parquet.bytes.ByteBufferInputStream;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ValuesType;
import org.apache.parquet.column.values.ValuesReader;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The current data page's values, as the value loops read them: PLAIN bytes in {@link #values},
 * dictionary indexes or RLE booleans decoded in bulk into {@link #indexes}, DELTA_BINARY_PACKED
 * INT32/INT64 decoded in bulk into {@link #decoded}, DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY
 * strings decoded in bulk into {@link #byteArrays}, or parquet-mr's values reader for every other
 * encoding (BYTE_STREAM_SPLIT, delta byte arrays of other types). The loops read and advance the cursors in place.
 */
// Deprecated encodings (PLAIN_DICTIONARY) still appear in files.
@SuppressWarnings("deprecation")
final class PageValues
{
    enum Mode
    {
        PLAIN,
        DICTIONARY,
        // Boolean values as an RLE/bit-packed run of 0/1 in `indexes` (data page v2 booleans).
        RLE_BOOLEANS,
        // DELTA_BINARY_PACKED INT32/INT64 values decoded into `decoded` (INT32 as the low 32 bits).
        DELTA_LONGS,
        // DELTA_LENGTH_BYTE_ARRAY / DELTA_BYTE_ARRAY strings decoded into `byteArrays` (value i at starts[i]..starts[i + 1]).
        BYTE_ARRAYS,
        // Any other encoding, through parquet-mr's ValuesReader.
        READER,
    }

    private final ColumnDescriptor descriptor;
    private final PrimitiveTypeName type;
    private final FlatLayout layout;
    private final RleHybridDecoder rle;
    // spark.ferry.gds.io.maxPageBytes: what one page may decode to, the bound the page checks hold headers to.
    private final long maxPageBytes;
    Mode mode;
    boolean hasNulls;
    // PLAIN: the page's value bytes, positioned at the next value.
    ByteBuffer values;
    // PLAIN booleans: the next value's bit in `values`.
    long booleanBit;
    // DICTIONARY and RLE_BOOLEANS: the page's decoded ids, and the next one's index.
    int[] indexes = new int[0];
    int valueCursor;
    // DELTA_LONGS: the page's decoded values; the next one is at valueCursor.
    long[] decoded = new long[0];
    // BYTE_ARRAYS: the page's decoded strings; the next one is at valueCursor.
    final DeltaByteArrays byteArrays = new DeltaByteArrays();
    ValuesReader reader;

    PageValues(ColumnDescriptor descriptor, FlatLayout layout, RleHybridDecoder rle, long maxPageBytes)
    {
        if (maxPageBytes <= 0) {
            throw new IllegalArgumentException("maxPageBytes must be positive, got " + maxPageBytes);
        }
        this.maxPageBytes = maxPageBytes;
        this.descriptor = descriptor;
        this.type = descriptor.getPrimitiveType().getPrimitiveTypeName();
        this.layout = layout;
        this.rle = rle;
    }

    /** Loads a page's {@code present} values (of {@code entries}) encoded as {@code encoding}, starting at {@code data}'s position. */
    void load(Encoding encoding, ByteBuffer data, int present, int entries, boolean dictionaryPresent)
    {
        hasNulls = present != entries;
        valueCursor = 0;
        reader = null;
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
                if (!dictionaryPresent) {
                    throw new IllegalStateException("dictionary-encoded page without a dictionary page");
                }
                mode = Mode.DICTIONARY;
                ensureIndexes(present);
                int bitWidth = present == 0 ? 0 : data.get() & 0xFF;
                // An index outside the dictionary fails on the dictionary array's bounds check.
                rle.decode(data, bitWidth, present, indexes);
                return;
            }
            case DELTA_BINARY_PACKED:
                if (type == PrimitiveTypeName.INT32 || type == PrimitiveTypeName.INT64) {
                    mode = Mode.DELTA_LONGS;
                    if (decoded.length < present) {
                        decoded = new long[present];
                    }
                    // The same bound as the page checks (which read this header already), so the decoder never trusts a header they would refuse;
                    // the decoder itself holds the header to `present` values and its blocks to the bytes left in the page.
                    DeltaBinaryPackedValues.decode(data, present, decoded, maxPageBytes);
                    return;
                }
                break;
            case DELTA_LENGTH_BYTE_ARRAY:
            case DELTA_BYTE_ARRAY:
                if (layout == FlatLayout.VARBYTES && type == PrimitiveTypeName.BINARY) {
                    mode = Mode.BYTE_ARRAYS;
                    if (encoding == Encoding.DELTA_LENGTH_BYTE_ARRAY) {
                        byteArrays.decodeLengths(data, present, maxPageBytes);
                    }
                    else {
                        byteArrays.decodePrefixed(data, present, maxPageBytes);
                    }
                    return;
                }
                break;
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
                break;
            default:
                break;
        }
        // parquet-mr's reader for the rest; it refuses what it cannot read.
        mode = Mode.READER;
        reader = encoding.getValuesReader(descriptor, ValuesType.VALUES);
        try {
            reader.initFromPage(present, ByteBufferInputStream.wrap(data));
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot read a data page", e);
        }
    }

    /** Moves past the next {@code present} values without writing them. */
    void skip(int present)
    {
        switch (mode) {
            case DICTIONARY:
            case RLE_BOOLEANS:
            case DELTA_LONGS:
            case BYTE_ARRAYS:
                valueCursor += present;
                return;
            case READER:
                reader.skip(present);
                return;
            case PLAIN:
                break;
        }
        switch (layout) {
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
                long bytes = (long) present * plainWidth();
                if (bytes > values.remaining()) {
                    throw new IllegalStateException(bytes + " value bytes to skip, " + values.remaining() + " left in the page");
                }
                values.position(values.position() + (int) bytes);
            }
        }
    }

    /** The PLAIN width of a fixed-width value in the page. */
    int plainWidth()
    {
        return layout == FlatLayout.INT96 ? 12 : type == PrimitiveTypeName.INT32 || type == PrimitiveTypeName.FLOAT ? 4 : 8;
    }

    private void ensureIndexes(int present)
    {
        if (indexes.length < present) {
            indexes = new int[present];
        }
    }
}
