package dev.ferry.gds.decode;

import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridEncoder;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RleRunScanTest
{
    @Test
    @SuppressWarnings("deprecation") // BytesInput.toByteArray: a test-sized copy
    void countsWhatParquetMrEncodesWithoutMovingTheBuffer()
            throws Exception
    {
        Random random = new Random(5);
        for (int bitWidth = 0; bitWidth <= 12; bitWidth++) {
            RunLengthBitPackingHybridEncoder encoder = new RunLengthBitPackingHybridEncoder(bitWidth, 64, 1 << 16, new HeapByteBufferAllocator());
            for (int index = 0; index < 1000; index++) {
                encoder.writeInt(bitWidth == 0 || index / 100 % 2 == 0 ? 0 : random.nextInt(1 << bitWidth));
            }
            ByteBuffer runs = ByteBuffer.wrap(encoder.toBytes().toByteArray());
            assertEquals(1000, RleRunScan.covered(runs, bitWidth, 1000), "bit width " + bitWidth);
            assertEquals(0, runs.position());
            // A claim past what the runs hold is told by their headers alone.
            assertTrue(RleRunScan.covered(runs, bitWidth, Integer.MAX_VALUE) < 1008, "bit width " + bitWidth);
        }
    }

    @Test
    void aBitPackedRunLongerThanThePageIsRefused()
    {
        // Header (2^20 groups << 1 | 1): a run of 8 Mi values, which parquet-mr would allocate at once.
        ByteBuffer runs = ByteBuffer.wrap(new byte[] {(byte) 0x81, (byte) 0x80, (byte) 0x80, 0x01, 0, 0, 0});
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> RleRunScan.covered(runs, 1, 100));
        assertTrue(refused.getMessage().contains("bit-packed run of 8388608 values where 100 are left"), refused.getMessage());
    }

    @Test
    void paddingInsideTheDataIsAcceptedAndIgnored()
    {
        // DuckDB's writer: 175 values left, one bit-packed run of 32 groups (256 values, 3 bits each: 96 bytes) that the page holds.
        int bitWidth = 3;
        byte[] page = new byte[1 + 32 * bitWidth];
        page[0] = (byte) (32 << 1 | 1);
        int[] values = new int[256];
        for (int index = 0; index < 256; index++) {
            values[index] = index < 175 ? index % 7 : 0;
            long bit = 8L + (long) index * bitWidth;
            for (int b = 0; b < bitWidth; b++, bit++) {
                if ((values[index] >> b & 1) != 0) {
                    page[(int) (bit / 8)] |= (byte) (1 << (bit % 8));
                }
            }
        }
        assertEquals(175, RleRunScan.covered(ByteBuffer.wrap(page), bitWidth, 175));
        // After an RLE run of 100 the same run still pads what is left.
        byte[] after = new byte[2 + page.length];
        after[0] = (byte) (100 << 1);
        after[1] = 5;
        System.arraycopy(page, 0, after, 2, page.length);
        assertEquals(175, RleRunScan.covered(ByteBuffer.wrap(after), bitWidth, 175));
        // The decoder takes the 175 values and ignores the padding.
        int[] decoded = new int[175];
        new RleHybridDecoder().decode(ByteBuffer.wrap(page), bitWidth, 175, decoded);
        for (int index = 0; index < 175; index++) {
            assertEquals(index % 7, decoded[index], "value " + index);
        }
        // The same header over a page cut 1 byte short of the run: refused, since its bytes run past the data.
        ByteBuffer cut = ByteBuffer.wrap(page, 0, page.length - 1).slice();
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> RleRunScan.covered(cut, bitWidth, 175));
        assertTrue(refused.getMessage().contains("bit-packed run of 256 values where 175 are left, and its 96 bytes run past the 95 left"), refused.getMessage());
    }

    @Test
    void cutOffRunsAreRefused()
    {
        assertThrows(IllegalStateException.class, () -> RleRunScan.covered(ByteBuffer.wrap(new byte[] {(byte) 0x80}), 1, 10));
        // An RLE run of 4 whose 2-byte value is cut off.
        assertThrows(IllegalStateException.class, () -> RleRunScan.covered(ByteBuffer.wrap(new byte[] {8, 1}), 16, 10));
        assertThrows(IllegalStateException.class, () -> RleRunScan.covered(ByteBuffer.wrap(new byte[] {0, 1}), 1, 10));
    }
}
