package dev.ferry.gds.decode;

import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.values.delta.DeltaBinaryPackingValuesWriterForInteger;
import org.apache.parquet.column.values.deltalengthbytearray.DeltaLengthByteArrayValuesWriter;
import org.apache.parquet.column.values.deltastrings.DeltaByteArrayWriter;
import org.apache.parquet.io.api.Binary;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DeltaHeadersTest
{
    private static final int VALUES = 1000;
    private static final long BOUND = 512L << 20;

    @Test
    @SuppressWarnings("deprecation") // BytesInput.toByteArray: a test-sized copy
    void parquetMrsDeltaStreamsPass()
            throws Exception
    {
        DeltaByteArrayWriter writer = new DeltaByteArrayWriter(64, 1 << 16, new HeapByteBufferAllocator());
        for (int index = 0; index < VALUES; index++) {
            writer.writeBytes(Binary.fromString("key-" + index * 7919 % 100_000));
        }
        DeltaHeaders.check(Encoding.DELTA_BYTE_ARRAY, ByteBuffer.wrap(writer.getBytes().toByteArray()), VALUES, BOUND);
    }

    @Test
    @SuppressWarnings("deprecation") // BytesInput.toByteArray: a test-sized copy
    void aSuffixStreamClaimingMoreValuesThanThePageIsRefused()
            throws Exception
    {
        // DELTA_BYTE_ARRAY is the prefix lengths' delta stream, then the suffixes as DELTA_LENGTH_BYTE_ARRAY (a delta stream of lengths first).
        DeltaBinaryPackingValuesWriterForInteger prefixes = new DeltaBinaryPackingValuesWriterForInteger(128, 4, 64, 1 << 16, new HeapByteBufferAllocator());
        DeltaLengthByteArrayValuesWriter suffixes = new DeltaLengthByteArrayValuesWriter(64, 1 << 16, new HeapByteBufferAllocator());
        for (int index = 0; index < VALUES; index++) {
            prefixes.writeInteger(index % 3);
            suffixes.writeBytes(Binary.fromString("s" + index));
        }
        byte[] first = prefixes.getBytes().toByteArray();
        byte[] second = suffixes.getBytes().toByteArray();
        DeltaHeaders.check(Encoding.DELTA_BYTE_ARRAY, ByteBuffer.wrap(concat(first, second, 0, second.length)), VALUES, BOUND);
        // The suffix lengths' header now claims 2^30 values: block size, mini blocks, total, then the original first value onwards.
        ByteBuffer original = ByteBuffer.wrap(second);
        for (int field = 0; field < 3; field++) {
            while ((original.get() & 0x80) != 0) {
                // the rest of this varint
            }
        }
        byte[] header = {(byte) 0x80, 0x01, 0x04, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x04};
        byte[] damaged = concat(first, concat(header, second, original.position(), second.length - original.position()), 0, -1);
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> DeltaHeaders.check(Encoding.DELTA_BYTE_ARRAY, ByteBuffer.wrap(damaged), VALUES, BOUND));
        assertTrue(refused.getMessage().contains("claims 1073741824 values in a page of 1000"), refused.getMessage());
    }

    // first, then `length` bytes of second from `offset` (all of second when length is -1)
    private static byte[] concat(byte[] first, byte[] second, int offset, int length)
    {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(first, 0, first.length);
        out.write(second, offset, length < 0 ? second.length - offset : length);
        return out.toByteArray();
    }
}
