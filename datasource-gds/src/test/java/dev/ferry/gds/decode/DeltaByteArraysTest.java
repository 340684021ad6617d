package dev.ferry.gds.decode;

import org.apache.parquet.bytes.ByteBufferInputStream;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.values.ValuesReader;
import org.apache.parquet.column.values.ValuesWriter;
import org.apache.parquet.column.values.delta.DeltaBinaryPackingValuesWriterForInteger;
import org.apache.parquet.column.values.deltalengthbytearray.DeltaLengthByteArrayValuesReader;
import org.apache.parquet.column.values.deltalengthbytearray.DeltaLengthByteArrayValuesWriter;
import org.apache.parquet.column.values.deltastrings.DeltaByteArrayReader;
import org.apache.parquet.column.values.deltastrings.DeltaByteArrayWriter;
import org.apache.parquet.io.api.Binary;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DeltaByteArraysTest
{
    private static final long BOUND = 512L << 20;
    private static final int[] COUNTS = {0, 1, 2, 31, 127, 128, 129, 1000, 4097};

    @Test
    void lengthPrefixedValuesMatchParquetMrsReader()
            throws Exception
    {
        Random random = new Random(21);
        for (int count : COUNTS) {
            for (int kind = 0; kind < 4; kind++) {
                byte[][] values = values(random, count, kind);
                DeltaLengthByteArrayValuesWriter writer = new DeltaLengthByteArrayValuesWriter(64, 1 << 16, new HeapByteBufferAllocator());
                byte[] page = write(writer, values);
                assertMatches(new DeltaLengthByteArrayValuesReader(), page, values, false, count + " values of kind " + kind);
            }
        }
    }

    @Test
    void prefixSharingValuesMatchParquetMrsReader()
            throws Exception
    {
        Random random = new Random(2121);
        for (int count : COUNTS) {
            for (int kind = 0; kind < 4; kind++) {
                byte[][] values = values(random, count, kind);
                DeltaByteArrayWriter writer = new DeltaByteArrayWriter(64, 1 << 16, new HeapByteBufferAllocator());
                byte[] page = write(writer, values);
                assertMatches(new DeltaByteArrayReader(), page, values, true, count + " values of kind " + kind);
            }
        }
    }

    @Test
    void theDecoderMovesPastItsValuesAndReusesItsArrays()
            throws Exception
    {
        byte[][] values = values(new Random(7), 300, 1);
        byte[] page = write(new DeltaByteArrayWriter(64, 1 << 16, new HeapByteBufferAllocator()), values);
        // The section inside a larger page: three bytes before it, two after.
        byte[] framed = new byte[page.length + 5];
        System.arraycopy(page, 0, framed, 3, page.length);
        ByteBuffer data = ByteBuffer.wrap(framed, 3, page.length);
        DeltaByteArrays decoder = new DeltaByteArrays();
        decoder.decodePrefixed(data, values.length, BOUND);
        assertEquals(3 + page.length, data.position());
        assertValues(decoder, values, "framed");
        // A second, shorter page through the same decoder.
        byte[][] fewer = Arrays.copyOf(values, 5);
        decoder.decodePrefixed(ByteBuffer.wrap(write(new DeltaByteArrayWriter(64, 1 << 16, new HeapByteBufferAllocator()), fewer)), fewer.length, BOUND);
        assertValues(decoder, fewer, "second page");
    }

    @Test
    void badLengthsAndPrefixesAreRefused()
            throws Exception
    {
        // A negative length.
        assertRefused(false, concat(deltas(3, -1, 2), bytes("abcde")), 3, "a length of -1 for value 1 of 3");
        // Lengths claiming more bytes than the page holds.
        assertRefused(false, concat(deltas(3, 1, 2), bytes("abcde")), 3, "3 byte arrays of 6 bytes in all, 5 bytes left in the page");
        // The first value taking a prefix (nothing before it in this page).
        assertRefused(true, concat(deltas(2, 0), deltas(1, 1), bytes("ab")), 2, "value 0 takes a prefix of 2 bytes from a value of 0");
        // A prefix longer than the value before it.
        assertRefused(true, concat(deltas(0, 3), deltas(2, 1), bytes("abc")), 2, "value 1 takes a prefix of 3 bytes from a value of 2");
        // A negative prefix length.
        assertRefused(true, concat(deltas(0, -1), deltas(2, 1), bytes("abc")), 2, "a prefix length of -1 for value 1 of 2");
        // Suffixes cut off.
        assertRefused(true, concat(deltas(0, 1), deltas(2, 4), bytes("abc")), 2, "2 byte arrays of 6 bytes in all, 3 bytes left in the page");
    }

    @Test
    void prefixedValuesAreHeldToThePageBound()
            throws Exception
    {
        // 200 values, each the 100-byte value before it plus nothing: 20,000 bytes of values from a few dozen page bytes.
        int[] prefixes = new int[200];
        int[] suffixes = new int[200];
        Arrays.fill(prefixes, 100);
        prefixes[0] = 0;
        suffixes[0] = 100;
        byte[] first = new byte[100];
        Arrays.fill(first, (byte) 'x');
        byte[] page = concat(deltas(prefixes), deltas(suffixes), first);
        DeltaByteArrays decoder = new DeltaByteArrays();
        decoder.decodePrefixed(ByteBuffer.wrap(page), 200, BOUND);
        assertEquals(20_000, decoder.starts()[200]);
        // A bound of 3000 bytes lets the delta headers through (200 values in blocks of 128 decode to 2.6 KB of longs), not the values.
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> new DeltaByteArrays().decodePrefixed(ByteBuffer.wrap(page), 200, 3000));
        assertTrue(refused.getMessage().contains("values of more than 3000 bytes in one page (the page bound), at value 30 of 200"), refused.getMessage());
    }

    private static void assertMatches(ValuesReader reader, byte[] page, byte[][] values, boolean prefixed, String what)
            throws Exception
    {
        reader.initFromPage(values.length, ByteBufferInputStream.wrap(ByteBuffer.wrap(page)));
        for (int index = 0; index < values.length; index++) {
            assertArrayEquals(values[index], reader.readBytes().getBytes(), "parquet-mr's own round trip, " + what);
        }
        DeltaByteArrays decoder = new DeltaByteArrays();
        ByteBuffer data = ByteBuffer.wrap(page);
        if (prefixed) {
            decoder.decodePrefixed(data, values.length, BOUND);
        }
        else {
            decoder.decodeLengths(data, values.length, BOUND);
        }
        assertValues(decoder, values, what);
        if (values.length > 0) {
            // No values: nothing read (a page of nulls only).
            assertEquals(0, data.remaining(), "moved past the values, " + what);
        }
    }

    private static void assertValues(DeltaByteArrays decoder, byte[][] values, String what)
    {
        for (int index = 0; index < values.length; index++) {
            byte[] decoded = Arrays.copyOfRange(decoder.bytes(), decoder.starts()[index], decoder.starts()[index + 1]);
            assertArrayEquals(values[index], decoded, what + ", value " + index);
        }
    }

    private static void assertRefused(boolean prefixed, byte[] page, int count, String message)
    {
        DeltaByteArrays decoder = new DeltaByteArrays();
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> {
            if (prefixed) {
                decoder.decodePrefixed(ByteBuffer.wrap(page), count, BOUND);
            }
            else {
                decoder.decodeLengths(ByteBuffer.wrap(page), count, BOUND);
            }
        });
        assertTrue(refused.getMessage().contains(message), refused.getMessage());
    }

    // kind 0: random bytes of random lengths (empty included); 1: sorted words sharing prefixes (what DELTA_BYTE_ARRAY is for);
    // 2: one value repeated; 3: long values (up to 3000 bytes).
    private static byte[][] values(Random random, int count, int kind)
    {
        byte[][] values = new byte[count][];
        for (int index = 0; index < count; index++) {
            switch (kind) {
                case 0: {
                    byte[] value = new byte[random.nextInt(40)];
                    random.nextBytes(value);
                    values[index] = value;
                    break;
                }
                case 1:
                    values[index] = String.format("customer#%09d-%s", index * 7 + random.nextInt(7), index % 3 == 0 ? "x" : "yz").getBytes(StandardCharsets.UTF_8);
                    break;
                case 2:
                    values[index] = bytes("furiously regular deposits");
                    break;
                default: {
                    byte[] value = new byte[random.nextInt(3000)];
                    random.nextBytes(value);
                    values[index] = value;
                }
            }
        }
        return values;
    }

    @SuppressWarnings("deprecation") // BytesInput.toByteArray: a test-sized copy
    private static byte[] write(ValuesWriter writer, byte[][] values)
            throws Exception
    {
        for (byte[] value : values) {
            writer.writeBytes(Binary.fromConstantByteArray(value));
        }
        BytesInput bytes = writer.getBytes();
        return bytes.toByteArray();
    }

    // A DELTA_BINARY_PACKED stream of these ints, as parquet-mr writes one.
    @SuppressWarnings("deprecation")
    private static byte[] deltas(int... values)
            throws Exception
    {
        DeltaBinaryPackingValuesWriterForInteger writer = new DeltaBinaryPackingValuesWriterForInteger(128, 4, 64, 1 << 16, new HeapByteBufferAllocator());
        for (int value : values) {
            writer.writeInteger(value);
        }
        return writer.getBytes().toByteArray();
    }

    private static byte[] bytes(String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] concat(byte[]... parts)
    {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }
}
