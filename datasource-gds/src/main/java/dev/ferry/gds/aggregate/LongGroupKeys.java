package dev.ferry.gds.aggregate;

import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.vectorized.ColumnVector;

import java.util.Arrays;

/**
 * One key that reads as a long (integral, date, timestamp, boolean, short decimal): small
 * non-negative keys index an array directly, others go through an open-addressing table; null is its
 * own group.
 */
final class LongGroupKeys
        extends GroupKeys
{
    // Keys below this index the direct array (at most 256 KiB of ids), which grows to the largest such key seen.
    private static final int DIRECT_LIMIT = 1 << 16;

    private final DataType type;
    private int[] direct = filled(1024);
    private long[] slotKeys = new long[64];
    private int[] slotGroups = filled(64);
    private long[] keys = new long[16];
    private int groups;
    private int nullGroup = -1;
    // Keys in the open-addressing table.
    private int hashed;
    private long[] values = new long[0];
    private boolean[] nulls = new boolean[0];

    LongGroupKeys(DataType type)
    {
        this.type = type;
    }

    @Override
    int groups()
    {
        return groups;
    }

    @Override
    void assign(ColumnVector[] columns, int rows, int[] ids)
    {
        if (values.length < rows) {
            values = new long[rows];
            nulls = new boolean[rows];
        }
        boolean hasNulls = VectorValues.readLongs(columns[0], type, rows, values, nulls);
        for (int row = 0; row < rows; row++) {
            if (hasNulls && nulls[row]) {
                if (nullGroup < 0) {
                    nullGroup = newGroup(0);
                }
                ids[row] = nullGroup;
                continue;
            }
            ids[row] = find(values[row]);
        }
    }

    private int find(long key)
    {
        if (key >= 0 && key < DIRECT_LIMIT) {
            int index = (int) key;
            if (index >= direct.length) {
                int old = direct.length;
                direct = Arrays.copyOf(direct, Math.min(DIRECT_LIMIT, Math.max(index + 1, old * 2)));
                Arrays.fill(direct, old, direct.length, -1);
            }
            int group = direct[index];
            if (group < 0) {
                group = newGroup(key);
                direct[index] = group;
            }
            return group;
        }
        int mask = slotGroups.length - 1;
        int slot = (int) ((key * 0x9E3779B97F4A7C15L) >>> 40) & mask;
        while (true) {
            int group = slotGroups[slot];
            if (group < 0) {
                group = newGroup(key);
                slotKeys[slot] = key;
                slotGroups[slot] = group;
                if (++hashed * 2 > slotGroups.length) {
                    rehash();
                }
                return group;
            }
            if (slotKeys[slot] == key && group != nullGroup) {
                return group;
            }
            slot = (slot + 1) & mask;
        }
    }

    private int newGroup(long key)
    {
        if (groups == keys.length) {
            keys = Arrays.copyOf(keys, groups * 2);
        }
        keys[groups] = key;
        return groups++;
    }

    private void rehash()
    {
        int size = slotGroups.length * 2;
        slotKeys = new long[size];
        slotGroups = filled(size);
        for (int group = 0; group < groups; group++) {
            if (group == nullGroup || (keys[group] >= 0 && keys[group] < DIRECT_LIMIT)) {
                continue;
            }
            int slot = (int) ((keys[group] * 0x9E3779B97F4A7C15L) >>> 40) & (size - 1);
            while (slotGroups[slot] >= 0) {
                slot = (slot + 1) & (size - 1);
            }
            slotKeys[slot] = keys[group];
            slotGroups[slot] = group;
        }
    }

    private static int[] filled(int size)
    {
        int[] slots = new int[size];
        Arrays.fill(slots, -1);
        return slots;
    }

    @Override
    void writeKey(int group, Object[] row)
    {
        row[0] = group == nullGroup ? null : VectorValues.fromLong(keys[group], type);
    }
}
