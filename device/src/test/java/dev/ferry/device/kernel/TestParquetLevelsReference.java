package dev.ferry.device.kernel;

import dev.ferry.common.FerryException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

public class TestParquetLevelsReference
{
    @Test
    public void runsBecomeAnLsbFirstBitmapWithZeroTrailingBits()
    {
        // Levels 1,1,0,1,1,1,0,0 | 1,0 -> byte 0 = 0b00111011, byte 1 = 0b00000001.
        int[] lengths = {2, 1, 0, 3, 2, 1, 1};
        byte[] levels = {1, 0, 1, 1, 0, 1, 0};
        assertArrayEquals(new byte[] {0b00111011, 0b00000001}, ParquetLevelsReference.validity(lengths, levels));
        assertArrayEquals(new int[] {0, 2, 7, 8}, ParquetLevelsReference.runStarts(new int[] {2, 5, 1, 0}));
    }

    @Test
    public void scatterPlacesDenseValuesAtValidSlotsAndZeroesNulls()
    {
        byte[] bitmap = {0b0101}; // values 0 and 2 valid of 4
        assertArrayEquals(new int[] {0, 1, 1, 2}, ParquetLevelsReference.positions(bitmap, 4));
        byte[] dense = {1, 2, 3, 4};
        assertArrayEquals(new byte[] {1, 2, 0, 0, 3, 4, 0, 0}, ParquetLevelsReference.spaced(dense, bitmap, 4, 2));
    }

    @Test
    public void badInputIsRejected()
    {
        assertThrows(FerryException.class, () -> ParquetLevelsReference.validity(new int[] {1}, new byte[] {2}));
        assertThrows(FerryException.class, () -> ParquetLevelsReference.runStarts(new int[] {-1}));
        assertThrows(FerryException.class, () -> ParquetLevelsReference.runStarts(new int[] {Integer.MAX_VALUE, 1}));
        assertThrows(FerryException.class, () -> ParquetLevelsReference.spaced(new byte[1], new byte[] {1}, 1, 3));
        assertThrows(FerryException.class, () -> ParquetLevelsReference.spaced(new byte[1], new byte[] {1}, 1, 2));
    }
}
