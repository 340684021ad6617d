package dev.ferry.gds.aggregate;

import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.vectorized.ColumnVector;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Any other keys (strings, floating, long decimals, several columns): each row's values as a list in
 * a hash map. Values compare as Spark's do (UTF8String bytes, Decimal values, normalized floats).
 */
final class GenericGroupKeys
        extends GroupKeys
{
    private final DataType[] types;
    private final Map<List<Object>, Integer> ids = new HashMap<>();
    private final List<Object[]> keys = new ArrayList<>();

    GenericGroupKeys(List<DataType> types)
    {
        this.types = types.toArray(new DataType[0]);
    }

    @Override
    int groups()
    {
        return keys.size();
    }

    @Override
    void assign(ColumnVector[] columns, int rows, int[] groupIds)
    {
        for (int row = 0; row < rows; row++) {
            Object[] key = new Object[types.length];
            for (int column = 0; column < types.length; column++) {
                key[column] = VectorValues.keyAt(columns[column], types[column], row);
            }
            Integer id = ids.get(Arrays.asList(key));
            if (id == null) {
                id = keys.size();
                keys.add(key);
                ids.put(Arrays.asList(key), id);
            }
            groupIds[row] = id;
        }
    }

    @Override
    void writeKey(int group, Object[] row)
    {
        System.arraycopy(keys.get(group), 0, row, 0, types.length);
    }
}
