package dev.ferry.gds.decode;

import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.parquet.column.values.ValuesReader;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

import static dev.ferry.gds.decode.FlatBytes.LITTLE_ENDIAN_INTS;
import static dev.ferry.gds.decode.FlatBytes.LITTLE_ENDIAN_LONGS;
import static dev.ferry.gds.decode.FlatBytes.copyValues;
import static dev.ferry.gds.decode.FlatBytes.int96Micros;
import static dev.ferry.gds.decode.FlatBytes.putDecimal;
import static dev.ferry.gds.decode.FlatBytes.setBit;
import static dev.ferry.gds.decode.FlatBytes.setBits;

/**
 * The flat path's loops for every row of a page run: one loop per layout and encoding, writing
 * straight into the Arrow vector's buffers with no call per value. PLAIN fixed-width runs without
 * nulls are one memory copy, strings go straight into the offsets and the batch's
 * {@link StringStage}, booleans are unpacked from their bits, dictionary pages without nulls take
 * loops with no definition-level test. The layout is fixed per column, so each switch takes one arm
 * for the whole chunk.
 */
final class DenseValueLoops
{
    private final PrimitiveTypeName type;
    private final FlatLayout layout;
    private final boolean optional;
    private final PageValues stream;
    private final DictionaryValues dictionary;
    private final StringStage stage;
    // The batch's vector, bound once per batch.
    private FieldVector vector;

    DenseValueLoops(PrimitiveTypeName type, FlatLayout layout, boolean optional, PageValues stream, DictionaryValues dictionary, StringStage stage)
    {
        this.type = type;
        this.layout = layout;
        this.optional = optional;
        this.stream = stream;
        this.dictionary = dictionary;
        this.stage = stage;
    }

    void bind(FieldVector target)
    {
        this.vector = target;
    }

    private boolean present(int[] definitions, int pageCursor, int index)
    {
        // A page without nulls may leave its levels unwritten (DefinitionLevels): they are read only where there are nulls.
        return !stream.hasNulls || definitions[pageCursor + index] != 0;
    }

    private void markPresent(int[] definitions, int pageCursor, int firstRow, int count)
    {
        long validity = vector.getValidityBufferAddress();
        if (!stream.hasNulls) {
            setBits(validity, firstRow, count);
            return;
        }
        for (int index = 0; index < count; index++) {
            if (definitions[pageCursor + index] != 0) {
                setBit(validity, firstRow + index);
            }
        }
    }

    void plain(int[] definitions, int pageCursor, int firstRow, int count)
    {
        switch (layout) {
            case FIXED4:
            case FIXED8: {
                int width = layout == FlatLayout.FIXED4 ? 4 : 8;
                long data = vector.getDataBufferAddress();
                if (!stream.hasNulls) {
                    copyValues(stream.values, data + (long) firstRow * width, count * width);
                }
                else {
                    for (int index = 0; index < count; index++) {
                        if (definitions[pageCursor + index] != 0) {
                            copyValues(stream.values, data + (long) (firstRow + index) * width, width);
                        }
                    }
                }
                markPresent(definitions, pageCursor, firstRow, count);
                return;
            }
            case BOOL: {
                long data = vector.getDataBufferAddress();
                int base = stream.values.arrayOffset() + stream.values.position();
                byte[] bytes = stream.values.array();
                for (int index = 0; index < count; index++) {
                    if (present(definitions, pageCursor, index)) {
                        long bit = stream.booleanBit++;
                        if (((bytes[base + (int) (bit >>> 3)] >>> (bit & 7)) & 1) != 0) {
                            setBit(data, firstRow + index);
                        }
                    }
                }
                markPresent(definitions, pageCursor, firstRow, count);
                return;
            }
            case VARBYTES: {
                long offsets = ((BaseVariableWidthVector) vector).getOffsetBufferAddress();
                byte[] page = stream.values.array();
                int position = stream.values.arrayOffset() + stream.values.position();
                int limit = stream.values.arrayOffset() + stream.values.limit();
                for (int index = 0; index < count; index++) {
                    int row = firstRow + index;
                    if (present(definitions, pageCursor, index)) {
                        if (limit - position < 4) {
                            throw new IllegalStateException("byte array length cut off with " + (limit - position) + " bytes left in the page");
                        }
                        int length = (page[position] & 0xFF) | (page[position + 1] & 0xFF) << 8 | (page[position + 2] & 0xFF) << 16 | (page[position + 3] & 0xFF) << 24;
                        position += 4;
                        if (length < 0 || length > limit - position) {
                            throw new IllegalStateException("byte array of length " + length + " with " + (limit - position) + " bytes left in the page");
                        }
                        stage.add(page, position, length);
                        position += length;
                    }
                    MemoryUtil.putInt(offsets + (long) (row + 1) * 4, stage.end());
                }
                stream.values.position(position - stream.values.arrayOffset());
                markPresent(definitions, pageCursor, firstRow, count);
                return;
            }
            case INT96: {
                // Read from the page array through little-endian views: the buffer's checked
                // getters and position updates per value cost more than the conversion.
                long data = vector.getDataBufferAddress();
                byte[] page = stream.values.array();
                int position = stream.values.arrayOffset() + stream.values.position();
                int limit = stream.values.arrayOffset() + stream.values.limit();
                for (int index = 0; index < count; index++) {
                    if (present(definitions, pageCursor, index)) {
                        if (limit - position < 12) {
                            throw new IllegalStateException("INT96 value cut off with " + (limit - position) + " bytes left in the page");
                        }
                        long nanosOfDay = (long) LITTLE_ENDIAN_LONGS.get(page, position);
                        int julianDay = (int) LITTLE_ENDIAN_INTS.get(page, position + 8);
                        MemoryUtil.putLong(data + (long) (firstRow + index) * 8, int96Micros(nanosOfDay, julianDay));
                        position += 12;
                    }
                }
                stream.values.position(position - stream.values.arrayOffset());
                markPresent(definitions, pageCursor, firstRow, count);
                return;
            }
            case DECIMAL: {
                long data = vector.getDataBufferAddress();
                for (int index = 0; index < count; index++) {
                    if (present(definitions, pageCursor, index)) {
                        putDecimal(data, firstRow + index, type == PrimitiveTypeName.INT32 ? stream.values.getInt() : stream.values.getLong());
                    }
                }
                markPresent(definitions, pageCursor, firstRow, count);
                return;
            }
        }
    }

    void fromDictionary(int[] definitions, int pageCursor, int firstRow, int count)
    {
        long data = vector.getDataBufferAddress();
        int cursor = stream.valueCursor;
        int[] ids = stream.indexes;
        // Pages without nulls (the common case) take loops with no definition-level test.
        boolean dense = !stream.hasNulls;
        switch (layout) {
            case FIXED4: {
                int[] dictionaryValues = dictionary.ints();
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
                long[] dictionaryValues = dictionary.longs();
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
                long offsets = ((BaseVariableWidthVector) vector).getOffsetBufferAddress() + (long) (firstRow + 1) * 4;
                byte[][] dictionaryValues = dictionary.bytes();
                for (int index = 0; index < count; index++) {
                    if (dense || definitions[pageCursor + index] != 0) {
                        byte[] bytes = dictionaryValues[ids[cursor++]];
                        stage.add(bytes, 0, bytes.length);
                    }
                    MemoryUtil.putInt(offsets + (long) index * 4, stage.end());
                }
                break;
            }
            case DECIMAL:
                for (int index = 0; index < count; index++) {
                    if (present(definitions, pageCursor, index)) {
                        int id = ids[cursor++];
                        putDecimal(data, firstRow + index, type == PrimitiveTypeName.INT32 ? dictionary.ints()[id] : dictionary.longs()[id]);
                    }
                }
                break;
            case BOOL:
                throw new IllegalStateException("dictionary-encoded booleans");
        }
        stream.valueCursor = cursor;
        markPresent(definitions, pageCursor, firstRow, count);
    }

    void rleBooleans(int[] definitions, int pageCursor, int firstRow, int count)
    {
        long data = vector.getDataBufferAddress();
        int cursor = stream.valueCursor;
        for (int index = 0; index < count; index++) {
            if (present(definitions, pageCursor, index)) {
                if (stream.indexes[cursor++] != 0) {
                    setBit(data, firstRow + index);
                }
            }
        }
        stream.valueCursor = cursor;
        markPresent(definitions, pageCursor, firstRow, count);
    }

    /** DELTA_BINARY_PACKED INT32/INT64 values, already decoded in bulk into the stream's longs. */
    void fromDecodedLongs(int[] definitions, int pageCursor, int firstRow, int count)
    {
        long data = vector.getDataBufferAddress();
        int cursor = stream.valueCursor;
        long[] values = stream.decoded;
        boolean dense = !stream.hasNulls;
        switch (layout) {
            case FIXED4: {
                long address = data + (long) firstRow * 4;
                for (int index = 0; index < count; index++) {
                    if (dense || definitions[pageCursor + index] != 0) {
                        MemoryUtil.putInt(address + (long) index * 4, (int) values[cursor++]);
                    }
                }
                break;
            }
            case FIXED8: {
                long address = data + (long) firstRow * 8;
                for (int index = 0; index < count; index++) {
                    if (dense || definitions[pageCursor + index] != 0) {
                        MemoryUtil.putLong(address + (long) index * 8, values[cursor++]);
                    }
                }
                break;
            }
            case DECIMAL:
                for (int index = 0; index < count; index++) {
                    if (dense || definitions[pageCursor + index] != 0) {
                        long value = values[cursor++];
                        putDecimal(data, firstRow + index, type == PrimitiveTypeName.INT32 ? (int) value : value);
                    }
                }
                break;
            default:
                throw new IllegalStateException("DELTA_BINARY_PACKED values for a " + layout + " column");
        }
        stream.valueCursor = cursor;
        markPresent(definitions, pageCursor, firstRow, count);
    }

    /** DELTA_LENGTH_BYTE_ARRAY / DELTA_BYTE_ARRAY strings, already decoded in bulk into the stream's byte arrays. */
    void fromByteArrays(int[] definitions, int pageCursor, int firstRow, int count)
    {
        long offsets = ((BaseVariableWidthVector) vector).getOffsetBufferAddress() + (long) (firstRow + 1) * 4;
        byte[] bytes = stream.byteArrays.bytes();
        int[] starts = stream.byteArrays.starts();
        int cursor = stream.valueCursor;
        boolean dense = !stream.hasNulls;
        for (int index = 0; index < count; index++) {
            if (dense || definitions[pageCursor + index] != 0) {
                stage.add(bytes, starts[cursor], starts[cursor + 1] - starts[cursor]);
                cursor++;
            }
            MemoryUtil.putInt(offsets + (long) index * 4, stage.end());
        }
        stream.valueCursor = cursor;
        markPresent(definitions, pageCursor, firstRow, count);
    }

    void fromReader(int[] definitions, int pageCursor, int firstRow, int count)
    {
        ValuesReader reader = stream.reader;
        long data = vector.getDataBufferAddress();
        switch (layout) {
            case FIXED4:
                for (int index = 0; index < count; index++) {
                    if (present(definitions, pageCursor, index)) {
                        int value = type == PrimitiveTypeName.FLOAT ? Float.floatToRawIntBits(reader.readFloat()) : reader.readInteger();
                        MemoryUtil.putInt(data + (long) (firstRow + index) * 4, value);
                    }
                }
                break;
            case FIXED8:
                for (int index = 0; index < count; index++) {
                    if (present(definitions, pageCursor, index)) {
                        long value = type == PrimitiveTypeName.DOUBLE ? Double.doubleToRawLongBits(reader.readDouble()) : reader.readLong();
                        MemoryUtil.putLong(data + (long) (firstRow + index) * 8, value);
                    }
                }
                break;
            case INT96:
                for (int index = 0; index < count; index++) {
                    if (present(definitions, pageCursor, index)) {
                        MemoryUtil.putLong(data + (long) (firstRow + index) * 8, int96Micros(reader.readBytes()));
                    }
                }
                break;
            case BOOL:
                for (int index = 0; index < count; index++) {
                    if (present(definitions, pageCursor, index) && reader.readBoolean()) {
                        setBit(data, firstRow + index);
                    }
                }
                break;
            case VARBYTES: {
                long offsets = ((BaseVariableWidthVector) vector).getOffsetBufferAddress();
                for (int index = 0; index < count; index++) {
                    if (present(definitions, pageCursor, index)) {
                        Binary value = reader.readBytes();
                        byte[] bytes = value.getBytesUnsafe();
                        stage.add(bytes, 0, value.length());
                    }
                    MemoryUtil.putInt(offsets + (long) (firstRow + index + 1) * 4, stage.end());
                }
                break;
            }
            case DECIMAL:
                for (int index = 0; index < count; index++) {
                    if (present(definitions, pageCursor, index)) {
                        putDecimal(data, firstRow + index, type == PrimitiveTypeName.INT32 ? reader.readInteger() : reader.readLong());
                    }
                }
                break;
        }
        markPresent(definitions, pageCursor, firstRow, count);
    }
}
