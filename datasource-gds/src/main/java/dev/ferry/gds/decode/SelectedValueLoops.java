package dev.ferry.gds.decode;

import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.parquet.column.values.ValuesReader;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

import static dev.ferry.gds.decode.FlatBytes.LITTLE_ENDIAN_INTS;
import static dev.ferry.gds.decode.FlatBytes.LITTLE_ENDIAN_LONGS;
import static dev.ferry.gds.decode.FlatBytes.checkLeft;
import static dev.ferry.gds.decode.FlatBytes.int96Micros;
import static dev.ferry.gds.decode.FlatBytes.putDecimal;
import static dev.ferry.gds.decode.FlatBytes.setBit;
import static dev.ferry.gds.decode.FlatBytes.setBits;

/**
 * Late materialization: the flat path's loops for a page run of which only selected rows (those a
 * pushed filter kept) are written, each into the slot equal to its index among the selected rows.
 * Pages without nulls whose values can be addressed by row are gathered directly, so the cost
 * follows the selected rows; other pages are walked value by value with a test per row.
 */
final class SelectedValueLoops
{
    private final PrimitiveTypeName type;
    private final FlatLayout layout;
    private final boolean optional;
    private final PageValues stream;
    private final DictionaryValues dictionary;
    private final StringStage stage;
    // The batch's vector, bound once per batch.
    private FieldVector vector;

    SelectedValueLoops(PrimitiveTypeName type, FlatLayout layout, boolean optional, PageValues stream, DictionaryValues dictionary, StringStage stage)
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

    void selective(int[] definitions, int pageCursor, int firstRow, int count, int[] selected, int from, int to)
    {
        if (!stream.hasNulls && stream.mode != PageValues.Mode.READER && !(stream.mode == PageValues.Mode.PLAIN && layout == FlatLayout.VARBYTES)) {
            gatherDense(firstRow, count, selected, from, to);
            return;
        }
        long data = vector.getDataBufferAddress();
        long validity = vector.getValidityBufferAddress();
        long offsets = layout == FlatLayout.VARBYTES ? ((BaseVariableWidthVector) vector).getOffsetBufferAddress() : 0;
        byte[] page = stream.mode == PageValues.Mode.PLAIN && layout != FlatLayout.BOOL ? stream.values.array() : null;
        int position = page == null ? 0 : stream.values.arrayOffset() + stream.values.position();
        int limit = page == null ? 0 : stream.values.arrayOffset() + stream.values.limit();
        int cursor = stream.valueCursor;
        int slot = from;
        int wanted = slot < to ? selected[slot] - firstRow : count;
        for (int index = 0; index < count; index++) {
            boolean write = index == wanted;
            boolean present = !stream.hasNulls || definitions[pageCursor + index] != 0;
            if (present) {
                switch (stream.mode) {
                    case PLAIN:
                        position = plainValue(page, position, limit, write, data, slot);
                        break;
                    case DICTIONARY:
                        if (write) {
                            dictionaryValue(stream.indexes[cursor], data, slot);
                        }
                        cursor++;
                        break;
                    case RLE_BOOLEANS:
                        if (write && stream.indexes[cursor] != 0) {
                            setBit(data, slot);
                        }
                        cursor++;
                        break;
                    case DELTA_LONGS:
                        if (write) {
                            decodedValue(stream.decoded[cursor], data, slot);
                        }
                        cursor++;
                        break;
                    case BYTE_ARRAYS:
                        if (write) {
                            int[] starts = stream.byteArrays.starts();
                            stage.add(stream.byteArrays.bytes(), starts[cursor], starts[cursor + 1] - starts[cursor]);
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
                    MemoryUtil.putInt(offsets + (long) (slot + 1) * 4, stage.end());
                }
                slot++;
                wanted = slot < to ? selected[slot] - firstRow : count;
            }
        }
        stream.valueCursor = cursor;
        if (page != null) {
            stream.values.position(position - stream.values.arrayOffset());
        }
    }

    private void gatherDense(int firstRow, int count, int[] selected, int from, int to)
    {
        long data = vector.getDataBufferAddress();
        if (stream.mode == PageValues.Mode.DICTIONARY || stream.mode == PageValues.Mode.RLE_BOOLEANS) {
            int[] ids = stream.indexes;
            int base = stream.valueCursor - firstRow;
            switch (stream.mode == PageValues.Mode.RLE_BOOLEANS ? FlatLayout.BOOL : layout) {
                case FIXED4: {
                    int[] dictionaryValues = dictionary.ints();
                    for (int slot = from; slot < to; slot++) {
                        MemoryUtil.putInt(data + (long) slot * 4, dictionaryValues[ids[base + selected[slot]]]);
                    }
                    break;
                }
                case FIXED8:
                case INT96: {
                    long[] dictionaryValues = dictionary.longs();
                    for (int slot = from; slot < to; slot++) {
                        MemoryUtil.putLong(data + (long) slot * 8, dictionaryValues[ids[base + selected[slot]]]);
                    }
                    break;
                }
                case VARBYTES: {
                    long offsets = ((BaseVariableWidthVector) vector).getOffsetBufferAddress();
                    byte[][] dictionaryValues = dictionary.bytes();
                    for (int slot = from; slot < to; slot++) {
                        byte[] bytes = dictionaryValues[ids[base + selected[slot]]];
                        stage.add(bytes, 0, bytes.length);
                        MemoryUtil.putInt(offsets + (long) (slot + 1) * 4, stage.end());
                    }
                    break;
                }
                case DECIMAL:
                    for (int slot = from; slot < to; slot++) {
                        int id = ids[base + selected[slot]];
                        putDecimal(data, slot, type == PrimitiveTypeName.INT32 ? dictionary.ints()[id] : dictionary.longs()[id]);
                    }
                    break;
                case BOOL:
                    if (stream.mode != PageValues.Mode.RLE_BOOLEANS) {
                        throw new IllegalStateException("dictionary-encoded booleans");
                    }
                    for (int slot = from; slot < to; slot++) {
                        if (ids[base + selected[slot]] != 0) {
                            setBit(data, slot);
                        }
                    }
                    break;
            }
            stream.valueCursor += count;
        }
        else if (stream.mode == PageValues.Mode.BYTE_ARRAYS) {
            long offsets = ((BaseVariableWidthVector) vector).getOffsetBufferAddress();
            byte[] bytes = stream.byteArrays.bytes();
            int[] starts = stream.byteArrays.starts();
            int base = stream.valueCursor - firstRow;
            for (int slot = from; slot < to; slot++) {
                int value = base + selected[slot];
                stage.add(bytes, starts[value], starts[value + 1] - starts[value]);
                MemoryUtil.putInt(offsets + (long) (slot + 1) * 4, stage.end());
            }
            stream.valueCursor += count;
        }
        else if (stream.mode == PageValues.Mode.DELTA_LONGS) {
            int base = stream.valueCursor - firstRow;
            for (int slot = from; slot < to; slot++) {
                decodedValue(stream.decoded[base + selected[slot]], data, slot);
            }
            stream.valueCursor += count;
        }
        else if (layout == FlatLayout.BOOL) {
            byte[] bytes = stream.values.array();
            int start = stream.values.arrayOffset() + stream.values.position();
            for (int slot = from; slot < to; slot++) {
                long bit = stream.booleanBit + selected[slot] - firstRow;
                if (((bytes[start + (int) (bit >>> 3)] >>> (bit & 7)) & 1) != 0) {
                    setBit(data, slot);
                }
            }
            stream.booleanBit += count;
        }
        else {
            int width = layout == FlatLayout.INT96 ? 12
                    : type == PrimitiveTypeName.INT32 || type == PrimitiveTypeName.FLOAT ? 4 : 8;
            long bytes = (long) count * width;
            if (bytes > stream.values.remaining()) {
                throw new IllegalStateException(bytes + " value bytes wanted, " + stream.values.remaining() + " left in the page");
            }
            byte[] page = stream.values.array();
            int base = stream.values.arrayOffset() + stream.values.position() - firstRow * width;
            for (int slot = from; slot < to; slot++) {
                int position = base + selected[slot] * width;
                switch (layout) {
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
                        throw new IllegalStateException("No direct gather for " + layout);
                }
            }
            stream.values.position(stream.values.position() + (int) bytes);
        }
        if (to > from) {
            setBits(vector.getValidityBufferAddress(), from, to - from);
        }
    }

    private int plainValue(byte[] page, int position, int limit, boolean write, long data, int slot)
    {
        switch (layout) {
            case BOOL: {
                long bit = stream.booleanBit++;
                if (write) {
                    int base = stream.values.arrayOffset() + stream.values.position();
                    if (((stream.values.array()[base + (int) (bit >>> 3)] >>> (bit & 7)) & 1) != 0) {
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
                    stage.add(page, position, length);
                }
                return position + length;
            }
        }
        throw new IllegalStateException("Unknown layout " + layout);
    }

    private void dictionaryValue(int id, long data, int slot)
    {
        switch (layout) {
            case FIXED4:
                MemoryUtil.putInt(data + (long) slot * 4, type == PrimitiveTypeName.FLOAT ? dictionary.ints()[id] : dictionary.ints()[id]);
                return;
            case FIXED8:
            case INT96:
                MemoryUtil.putLong(data + (long) slot * 8, type == PrimitiveTypeName.DOUBLE ? dictionary.longs()[id] : dictionary.longs()[id]);
                return;
            case VARBYTES: {
                byte[] bytes = dictionary.bytes()[id];
                stage.add(bytes, 0, bytes.length);
                return;
            }
            case DECIMAL:
                putDecimal(data, slot, type == PrimitiveTypeName.INT32 ? dictionary.ints()[id] : dictionary.longs()[id]);
                return;
            case BOOL:
                throw new IllegalStateException("dictionary-encoded booleans");
        }
    }

    // One DELTA_BINARY_PACKED value (an INT32 column's as its low 32 bits) into slot.
    private void decodedValue(long value, long data, int slot)
    {
        switch (layout) {
            case FIXED4:
                MemoryUtil.putInt(data + (long) slot * 4, (int) value);
                return;
            case FIXED8:
                MemoryUtil.putLong(data + (long) slot * 8, value);
                return;
            case DECIMAL:
                putDecimal(data, slot, type == PrimitiveTypeName.INT32 ? (int) value : value);
                return;
            default:
                throw new IllegalStateException("DELTA_BINARY_PACKED values for a " + layout + " column");
        }
    }

    private void readerValue(boolean write, long data, int slot)
    {
        ValuesReader reader = stream.reader;
        switch (layout) {
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
                    stage.add(value.getBytesUnsafe(), 0, value.length());
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
}
