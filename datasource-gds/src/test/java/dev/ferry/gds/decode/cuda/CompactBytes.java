package dev.ferry.gds.decode.cuda;

import java.io.ByteArrayOutputStream;

/**
 * Thrift compact-protocol bytes written by hand, for page headers parquet-mr's writer never
 * produces: long-form field ids, fields of every type the walk must step over, bad values.
 */
final class CompactBytes
{
    static final int TRUE = 1;
    static final int FALSE = 2;
    static final int BYTE = 3;
    static final int I16 = 4;
    static final int I32 = 5;
    static final int I64 = 6;
    static final int DOUBLE = 7;
    static final int BINARY = 8;
    static final int LIST = 9;
    static final int SET = 10;
    static final int MAP = 11;
    static final int STRUCT = 12;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    CompactBytes raw(int... bytes)
    {
        for (int value : bytes) {
            out.write(value);
        }
        return this;
    }

    CompactBytes raw(byte[] bytes)
    {
        out.writeBytes(bytes);
        return this;
    }

    /** A short-form field header: the id as a delta from the previous field's. */
    CompactBytes field(int delta, int type)
    {
        return raw((delta << 4) | type);
    }

    /** A long-form field header: the id as a zigzag i16 after the type. */
    CompactBytes longField(int id, int type)
    {
        return raw(type).zigzag(id);
    }

    CompactBytes varint(long value)
    {
        long rest = value;
        while ((rest & ~0x7FL) != 0) {
            out.write((int) ((rest & 0x7F) | 0x80));
            rest >>>= 7;
        }
        out.write((int) rest);
        return this;
    }

    CompactBytes zigzag(long value)
    {
        return varint((value << 1) ^ (value >> 63));
    }

    CompactBytes i32(int delta, long value)
    {
        return field(delta, I32).zigzag(value);
    }

    CompactBytes stop()
    {
        return raw(0);
    }

    int size()
    {
        return out.size();
    }

    byte[] bytes()
    {
        return out.toByteArray();
    }

    /** A v1 data page's header (PLAIN values, RLE levels) with {@code stored} body bytes, then the body (zeros). */
    static CompactBytes v1Page(int values, int stored)
    {
        return v1Header(values, stored, 0).raw(new byte[stored]);
    }

    static CompactBytes v1Header(int values, int stored, int encoding)
    {
        return new CompactBytes().i32(1, 0).i32(1, stored).i32(1, stored).field(2, STRUCT).i32(1, values).i32(1, encoding).i32(1, 3).i32(1, 3).stop().stop();
    }
}
