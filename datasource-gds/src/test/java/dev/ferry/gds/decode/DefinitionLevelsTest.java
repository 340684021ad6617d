package dev.ferry.gds.decode;

import org.apache.parquet.column.Encoding;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class DefinitionLevelsTest
{
    // A v1 page's levels: 4-byte length, then the runs.
    private static ByteBuffer v1(byte... runs)
    {
        ByteBuffer page = ByteBuffer.allocate(4 + runs.length).order(ByteOrder.LITTLE_ENDIAN);
        page.putInt(runs.length).put(runs).flip();
        return page;
    }

    @Test
    void oneRunOfOnesOverThePageIsAllPresentAndNotExpanded()
    {
        DefinitionLevels levels = new DefinitionLevels(new RleHybridDecoder());
        // A page with nulls first: 3 present, 2 null (bit-packed: 1,1,0,1,0 then padding).
        levels.decodeV1(Encoding.RLE, v1((byte) 0x03, (byte) 0b01011), 5);
        assertEquals(3, levels.present(5));
        assertArrayEquals(new int[] {1, 1, 0, 1, 0}, java.util.Arrays.copyOf(levels.levels(), 5));
        // Then a page of 200 values as one RLE run of 1s (header 200 << 1 = 400: varint 0x90 0x03): all present, levels left as they were.
        ByteBuffer page = v1((byte) 0x90, (byte) 0x03, (byte) 1);
        levels.decodeV1(Encoding.RLE, page, 200);
        assertEquals(200, levels.present(200));
        assertEquals(7, page.position());
        // A run of 1s shorter than the page is expanded as usual: 100 ones, then 100 zeros.
        levels.decodeV1(Encoding.RLE, v1((byte) 0xC8, (byte) 0x01, (byte) 1, (byte) 0xC8, (byte) 0x01, (byte) 0), 200);
        assertEquals(100, levels.present(200));
        assertEquals(0, levels.levels()[150]);
        // A run of 0s over the page is all null, not all present.
        levels.decodeV2(ByteBuffer.wrap(new byte[] {(byte) 0x90, (byte) 0x03, 0}), 200);
        assertEquals(0, levels.present(200));
        // A level above 1 in one run is still refused.
        levels.decodeV2(ByteBuffer.wrap(new byte[] {(byte) 0x90, (byte) 0x03, 3}), 200);
        assertThrows(IllegalStateException.class, () -> levels.present(200));
    }
}
