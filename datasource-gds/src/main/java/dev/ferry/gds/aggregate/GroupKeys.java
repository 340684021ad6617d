package dev.ferry.gds.aggregate;

import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.vectorized.ColumnVector;

import java.util.List;

/** Gives each distinct GROUP BY key a dense id, in the order keys are first seen. */
abstract class GroupKeys
{
    abstract int groups();

    /** Sets {@code ids[row]} to the group of each of the batch's rows, adding new keys. */
    abstract void assign(ColumnVector[] keys, int rows, int[] ids);

    /** The key of {@code group} into {@code row[0 .. keys)}, as Spark holds the values. */
    abstract void writeKey(int group, Object[] row);

    static GroupKeys of(List<DataType> types)
    {
        if (types.size() == 1 && VectorValues.longBacked(types.get(0))) {
            return new LongGroupKeys(types.get(0));
        }
        return new GenericGroupKeys(types);
    }
}
