package dev.ferry.gds.decode;

import java.util.Arrays;

/** A growable int array, reused across batches. */
final class LevelBuffer
{
    private int[] values = new int[1024];
    private int size;

    void add(int value)
    {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = value;
    }

    int get(int index)
    {
        return values[index];
    }

    int size()
    {
        return size;
    }

    void clear()
    {
        size = 0;
    }
}
