package dev.ferry.gds.decode;

import org.apache.parquet.bytes.ByteBufferInputStream;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.values.ValuesWriter;
import org.apache.parquet.column.values.delta.DeltaBinaryPackingValuesReader;
import org.apache.parquet.column.values.delta.DeltaBinaryPackingValuesWriterForInteger;
import org.apache.parquet.column.values.delta.DeltaBinaryPackingValuesWriterForLong;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DeltaBinaryPackedValuesTest
{
    private static final long BOUND = 512L << 20;
    private static final int[] COUNTS = {0, 1, 2, 31, 32, 33, 127, 128, 129, 1000, 4097};
    // {block size, mini blocks}: parquet-mr's default and two others the format allows.
    private static final int[][] SHAPES = {{128, 4}, {256, 8}, {128, 1}};

    @Test
    void longsMatchParquetMrsReader()
            throws Exception
    {
        Random random = new Random(21);
        for (int[] shape : SHAPES) {
            for (int count : COUNTS) {
                for (int kind = 0; kind < 5; kind++) {
                    long[] values = longs(random, count, kind);
                    DeltaBinaryPackingValuesWriterForLong writer = new DeltaBinaryPackingValuesWriterForLong(shape[0], shape[1], 64, 1 << 16, new HeapByteBufferAllocator());
                    for (long value : values) {
                        writer.writeLong(value);
                    }
                    byte[] page = bytes(writer);
                    long[] expected = new long[count];
                    DeltaBinaryPackingValuesReader reader = reader(page, count);
                    for (int index = 0; index < count; index++) {
                        expected[index] = reader.readLong();
                    }
                    assertArrayEquals(values, expected, "parquet-mr's own round trip");
                    long[] decoded = new long[count];
                    DeltaBinaryPackedValues.decode(ByteBuffer.wrap(page), count, decoded, BOUND);
                    assertArrayEquals(expected, decoded, "shape " + Arrays.toString(shape) + ", " + count + " values of kind " + kind);
                }
            }
        }
    }

    @Test
    void intsMatchParquetMrsReader()
            throws Exception
    {
        Random random = new Random(2121);
        for (int[] shape : SHAPES) {
            for (int count : COUNTS) {
                for (int kind = 0; kind < 5; kind++) {
                    long[] wide = longs(random, count, kind);
                    DeltaBinaryPackingValuesWriterForInteger writer = new DeltaBinaryPackingValuesWriterForInteger(shape[0], shape[1], 64, 1 << 16, new HeapByteBufferAllocator());
                    for (long value : wide) {
                        writer.writeInteger((int) value);
                    }
                    byte[] page = bytes(writer);
                    int[] expected = new int[count];
                    DeltaBinaryPackingValuesReader reader = reader(page, count);
                    for (int index = 0; index < count; index++) {
                        expected[index] = reader.readInteger();
                        assertEquals((int) wide[index], expected[index], "parquet-mr's own round trip");
                    }
                    long[] decoded = new long[count];
                    DeltaBinaryPackedValues.decode(ByteBuffer.wrap(page), count, decoded, BOUND);
                    int[] low = new int[count];
                    for (int index = 0; index < count; index++) {
                        low[index] = (int) decoded[index];
                    }
                    assertArrayEquals(expected, low, "shape " + Arrays.toString(shape) + ", " + count + " values of kind " + kind);
                }
            }
        }
    }

    @Test
    void everyBitWidthAppears()
            throws Exception
    {
        // One mini block per width: deltas spanning exactly `width` bits above the min delta (0).
        for (int width = 0; width <= 64; width++) {
            long[] values = new long[33];
            long span = width == 64 ? -1L : (1L << width) - 1;
            for (int index = 1; index < values.length; index++) {
                values[index] = values[index - 1] + (index == 1 ? 0 : index == 2 ? span : index % 2 == 0 ? span >>> 1 : 0);
            }
            DeltaBinaryPackingValuesWriterForLong writer = new DeltaBinaryPackingValuesWriterForLong(128, 4, 64, 1 << 16, new HeapByteBufferAllocator());
            for (long value : values) {
                writer.writeLong(value);
            }
            byte[] page = bytes(writer);
            long[] decoded = new long[values.length];
            DeltaBinaryPackedValues.decode(ByteBuffer.wrap(page), values.length, decoded, BOUND);
            assertArrayEquals(values, decoded, "width " + width);
        }
    }

    @Test
    void aPageEndingInsideTheLastMiniBlocksPaddingIsRead()
    {
        // Blocks of 128 in 4 mini blocks of 32, 2 values, first 5; min delta 3, widths 8,0,0,0; one delta byte (7) where 32 would fill the mini block.
        byte[] page = {(byte) 0x80, 0x01, 0x04, 0x02, 0x0A, 0x06, 0x08, 0x00, 0x00, 0x00, 0x07};
        long[] decoded = new long[2];
        DeltaBinaryPackedValues.decode(ByteBuffer.wrap(page), 2, decoded, BOUND);
        assertArrayEquals(new long[] {5, 15}, decoded);
        // Without that byte the needed delta is missing.
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> DeltaBinaryPackedValues.decode(ByteBuffer.wrap(Arrays.copyOf(page, page.length - 1)), 2, new long[2], BOUND));
        assertTrue(refused.getMessage().contains("needs 1 bytes for 1 values of 8 bits, 0 left"), refused.getMessage());
    }

    @Test
    void badHeadersAndBlocksAreRefused()
    {
        // Block size not a multiple of 128.
        assertRefused(new byte[] {0x40, 0x04, 0x02, 0x00}, 2, "blocks of 64 values in 4 mini blocks");
        // No mini blocks.
        assertRefused(new byte[] {(byte) 0x80, 0x01, 0x00, 0x02, 0x00}, 2, "in 0 mini blocks");
        // More values than the page has.
        assertRefused(new byte[] {(byte) 0x80, 0x01, 0x04, 0x05, 0x00}, 2, "claims 5 values in a page of 2");
        // Fewer values than the page needs.
        assertRefused(new byte[] {(byte) 0x80, 0x01, 0x04, 0x01, 0x00}, 2, "holds 1 values, the page has 2");
        // A header cut off in its first value.
        assertRefused(new byte[] {(byte) 0x80, 0x01, 0x04, 0x02, (byte) 0x80}, 2, "header is cut off");
        // A block size of 2^62, whose size in longs overflows.
        assertRefused(new byte[] {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x40, 0x04, 0x02, 0x00}, 2,
                "decodes past the page bound");
        // Bit widths cut off after two of four: the one block needed cannot fit in the 3 bytes left.
        assertRefused(new byte[] {(byte) 0x80, 0x01, 0x04, 0x02, 0x00, 0x00, 0x08, 0x08}, 2, "needs 1 blocks of at least 5 bytes for 2 values, 3 bytes left");
        // The second block's bit widths cut off: the header's blocks fit the page's bytes, the second block's widths are not there.
        byte[] secondCut = new byte[6 + 1 + 4 + 32 + 1 + 2];
        System.arraycopy(new byte[] {(byte) 0x80, 0x01, 0x04, (byte) 0x82, 0x01, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00}, 0, secondCut, 0, 11);
        assertRefused(secondCut, 130, "bit widths of DELTA_BINARY_PACKED block 1 are cut off");
        // Blocks of 2^17 values in 4096 mini blocks (a shape the format allows): 4097 bytes a block, in a page with 2 left.
        assertRefused(new byte[] {(byte) 0x80, (byte) 0x80, 0x08, (byte) 0x80, 0x20, 0x02, 0x00, 0x00, 0x00}, 2, "in 4096 mini blocks needs 1 blocks of at least 4097 bytes");
        // 2^32 + 1 mini blocks (blocks of 128 (2^32 + 1) values) would wrap as an int: the page bound refuses such a block size.
        assertRefused(new byte[] {(byte) 0x80, (byte) 0x81, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x10, (byte) 0x81, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x10, 0x02, 0x00,
                0x00, 0x00}, 2, "decodes past the page bound");
        // A bit width of 65.
        assertRefused(new byte[] {(byte) 0x80, 0x01, 0x04, 0x02, 0x00, 0x00, 0x41, 0x00, 0x00, 0x00, 0x01}, 2, "has a bit width of 65");
        // The min delta cut off.
        assertRefused(new byte[] {(byte) 0x80, 0x01, 0x04, 0x02, 0x00}, 2, "0 bytes left in the page");
        // One value needs no block: a header alone is the whole section.
        long[] one = new long[1];
        DeltaBinaryPackedValues.decode(ByteBuffer.wrap(new byte[] {(byte) 0x80, 0x01, 0x04, 0x01, 0x0A}), 1, one, BOUND);
        assertArrayEquals(new long[] {5}, one);
        // A second block missing: 130 values need two blocks of 128 deltas; the first is whole (32 bytes of 8-bit deltas, then widths 0).
        byte[] oneBlock = new byte[6 + 1 + 4 + 32];
        System.arraycopy(new byte[] {(byte) 0x80, 0x01, 0x04, (byte) 0x82, 0x01, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00}, 0, oneBlock, 0, 11);
        assertRefused(oneBlock, 130, "header is cut off");
    }

    private static void assertRefused(byte[] page, int count, String message)
    {
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> DeltaBinaryPackedValues.decode(ByteBuffer.wrap(page), count, new long[count], BOUND));
        assertTrue(refused.getMessage().contains(message), refused.getMessage());
    }

    // kind 0: small random deltas of both signs; 1: constant steps (width 0); 2: Long.MIN/MAX alternating (wraparound, width 64);
    // 3: full-range random; 4: mini blocks of widely varying magnitude.
    private static long[] longs(Random random, int count, int kind)
    {
        long[] values = new long[count];
        long value = random.nextLong();
        for (int index = 0; index < count; index++) {
            switch (kind) {
                case 0:
                    value += random.nextInt(2001) - 1000;
                    break;
                case 1:
                    value += 7;
                    break;
                case 2:
                    value = index % 2 == 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
                    break;
                case 3:
                    value = random.nextLong();
                    break;
                default:
                    value += random.nextLong() >> random.nextInt(64);
            }
            values[index] = value;
        }
        return values;
    }

    @SuppressWarnings("deprecation") // BytesInput.toByteArray: a test-sized copy
    private static byte[] bytes(ValuesWriter writer)
            throws Exception
    {
        return writer.getBytes().toByteArray();
    }

    private static DeltaBinaryPackingValuesReader reader(byte[] page, int count)
            throws Exception
    {
        DeltaBinaryPackingValuesReader reader = new DeltaBinaryPackingValuesReader();
        reader.initFromPage(count, ByteBufferInputStream.wrap(ByteBuffer.wrap(page)));
        return reader;
    }
}
