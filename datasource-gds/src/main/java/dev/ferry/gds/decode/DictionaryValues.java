package dev.ferry.gds.decode;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

import static dev.ferry.gds.decode.FlatBytes.LITTLE_ENDIAN_INTS;
import static dev.ferry.gds.decode.FlatBytes.LITTLE_ENDIAN_LONGS;
import static dev.ferry.gds.decode.FlatBytes.int96Micros;

/**
 * A column chunk's dictionary, decoded once per chunk into the primitive array the value loops
 * index, so each dictionary-encoded value is an array load rather than a call. FLOAT and DOUBLE
 * entries are kept as raw bits, so their loops are the integer ones; INT96 entries as micros.
 */
final class DictionaryValues
{
    private final ColumnDescriptor descriptor;
    private final PrimitiveTypeName type;
    private boolean present;
    private int[] ints;
    private long[] longs;
    private byte[][] bytes;

    DictionaryValues(ColumnDescriptor descriptor)
    {
        this.descriptor = descriptor;
        this.type = descriptor.getPrimitiveType().getPrimitiveTypeName();
    }

    /** Loads a chunk's dictionary page, or forgets the previous chunk's when {@code page} is null. */
    void load(DictionaryPage page)
    {
        ints = null;
        longs = null;
        bytes = null;
        present = page != null;
        if (page == null) {
            return;
        }
        if ((type == PrimitiveTypeName.INT96 || type == PrimitiveTypeName.BINARY)
                && (page.getEncoding() == Encoding.PLAIN_DICTIONARY || page.getEncoding() == Encoding.PLAIN)) {
            plain(page);
            return;
        }
        Dictionary dictionary;
        try {
            dictionary = page.getEncoding().initDictionary(descriptor, page);
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot read the dictionary page", e);
        }
        materialize(dictionary);
    }

    boolean present()
    {
        return present;
    }

    /** INT32 entries, or FLOAT entries as their raw bits. */
    int[] ints()
    {
        return ints;
    }

    /** INT64 entries, DOUBLE entries as their raw bits, or INT96 entries as micros. */
    long[] longs()
    {
        return longs;
    }

    /** BINARY entries. */
    byte[][] bytes()
    {
        return bytes;
    }

    /**
     * INT96 and BINARY dictionaries straight from the PLAIN dictionary page into the arrays the loops
     * read, without parquet-mr's Binary object per entry: INT96 entries are 12 bytes each, BINARY
     * entries a 4-byte little-endian length and the bytes.
     */
    // BytesInput.toByteBuffer() is deprecated only for a variant with a releaser, which heap pages do not need.
    @SuppressWarnings("deprecation")
    private void plain(DictionaryPage page)
    {
        int size = page.getDictionarySize();
        ByteBuffer buffer;
        try {
            buffer = PageSource.heap(page.getBytes().toByteBuffer());
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot read the dictionary page", e);
        }
        byte[] array = buffer.array();
        int position = buffer.arrayOffset() + buffer.position();
        int limit = buffer.arrayOffset() + buffer.limit();
        if (size < 0) {
            throw new IllegalStateException("dictionary page of " + size + " entries");
        }
        if (type == PrimitiveTypeName.INT96) {
            if ((long) size * 12 > limit - position) {
                throw new IllegalStateException("dictionary of " + size + " INT96 entries in a page of " + (limit - position) + " bytes");
            }
            longs = new long[size];
            for (int id = 0; id < size; id++) {
                int offset = position + id * 12;
                longs[id] = int96Micros((long) LITTLE_ENDIAN_LONGS.get(array, offset), (int) LITTLE_ENDIAN_INTS.get(array, offset + 8));
            }
            return;
        }
        byte[][] entries = new byte[size][];
        for (int id = 0; id < size; id++) {
            if (limit - position < 4) {
                throw new IllegalStateException("dictionary entry " + id + " of " + size + " cut off with " + (limit - position) + " bytes left in the page");
            }
            int length = (int) LITTLE_ENDIAN_INTS.get(array, position);
            position += 4;
            if (length < 0 || length > limit - position) {
                throw new IllegalStateException("dictionary entry of length " + length + " with " + (limit - position) + " bytes left in the page");
            }
            entries[id] = Arrays.copyOfRange(array, position, position + length);
            position += length;
        }
        bytes = entries;
    }

    private void materialize(Dictionary dictionary)
    {
        int size = dictionary.getMaxId() + 1;
        switch (type) {
            case INT32:
                ints = new int[size];
                for (int id = 0; id < size; id++) {
                    ints[id] = dictionary.decodeToInt(id);
                }
                return;
            case INT64:
                longs = new long[size];
                for (int id = 0; id < size; id++) {
                    longs[id] = dictionary.decodeToLong(id);
                }
                return;
            case FLOAT:
                ints = new int[size];
                for (int id = 0; id < size; id++) {
                    ints[id] = Float.floatToRawIntBits(dictionary.decodeToFloat(id));
                }
                return;
            case DOUBLE:
                longs = new long[size];
                for (int id = 0; id < size; id++) {
                    longs[id] = Double.doubleToRawLongBits(dictionary.decodeToDouble(id));
                }
                return;
            case BINARY:
                bytes = new byte[size][];
                for (int id = 0; id < size; id++) {
                    Binary value = dictionary.decodeToBinary(id);
                    bytes[id] = value.getBytes();
                }
                return;
            case INT96:
                longs = new long[size];
                for (int id = 0; id < size; id++) {
                    longs[id] = int96Micros(dictionary.decodeToBinary(id));
                }
                return;
            case BOOLEAN:
            case FIXED_LEN_BYTE_ARRAY:
                throw new IllegalStateException("No flat dictionary path for " + descriptor);
        }
    }
}
