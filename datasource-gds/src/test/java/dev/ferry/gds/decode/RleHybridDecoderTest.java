package dev.ferry.gds.decode;

import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridEncoder;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class RleHybridDecoderTest
{
    @Test
    @SuppressWarnings("deprecation") // BytesInput.toByteArray: a test-sized copy
    void decodesWhatParquetMrEncodesForEveryWidth()
            throws Exception
    {
        Random random = new Random(3);
        RleHybridDecoder decoder = new RleHybridDecoder();
        for (int bitWidth = 0; bitWidth <= 20; bitWidth++) {
            int[] values = new int[1000];
            for (int index = 0; index < values.length; index++) {
                // Long runs become RLE runs, the rest bit-packed groups.
                values[index] = bitWidth == 0 ? 0 : (index / 100 % 2 == 0 ? 5 % (1 << bitWidth) : random.nextInt(1 << bitWidth));
            }
            RunLengthBitPackingHybridEncoder encoder = new RunLengthBitPackingHybridEncoder(bitWidth, 64, 1 << 16, new HeapByteBufferAllocator());
            for (int value : values) {
                encoder.writeInt(value);
            }
            int[] decoded = new int[values.length];
            decoder.decode(ByteBuffer.wrap(encoder.toBytes().toByteArray()), bitWidth, values.length, decoded);
            assertArrayEquals(values, decoded, "bit width " + bitWidth);
        }
    }

    @Test
    void widthZeroIsAllZeroEvenAfterOtherWidths()
    {
        RleHybridDecoder decoder = new RleHybridDecoder();
        int[] ones = new int[8];
        // One bit-packed group of eight ones at width 1.
        decoder.decode(ByteBuffer.wrap(new byte[] {3, (byte) 0xFF}), 1, 8, ones);
        assertArrayEquals(new int[] {1, 1, 1, 1, 1, 1, 1, 1}, ones);
        int[] zeros = new int[5];
        decoder.decode(ByteBuffer.wrap(new byte[] {3}), 0, 5, zeros);
        assertArrayEquals(new int[5], zeros);
    }

    @Test
    void truncatedInputFailsInsteadOfInventingValues()
    {
        RleHybridDecoder decoder = new RleHybridDecoder();
        assertThrows(RuntimeException.class, () -> decoder.decode(ByteBuffer.wrap(new byte[] {(byte) 0x81, 0x01, 1}), 3, 100, new int[100]));
        assertThrows(RuntimeException.class, () -> decoder.decode(ByteBuffer.wrap(new byte[] {}), 1, 1, new int[1]));
    }
}
