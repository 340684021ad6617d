package dev.ferry.gds.aggregate;

import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.unsafe.types.UTF8String;
import org.apache.spark.sql.vectorized.ColumnVector;

import java.util.Arrays;

/**
 * MIN and MAX over binary-collation strings (Spark's UTF8String order: unsigned bytes) and DECIMAL
 * above 18 digits. A string is compared where it lies in the batch and copied only when it wins.
 */
final class ObjectMinMaxAccumulator
        extends Accumulator
{
    private final DataType type;
    private final boolean max;
    private Object[] best = new Object[0];

    ObjectMinMaxAccumulator(int index, Spill spill, DataType type, boolean max)
    {
        super(index, spill);
        this.type = type;
        this.max = max;
    }

    @Override
    void grow(int groups)
    {
        if (best.length < groups) {
            best = Arrays.copyOf(best, capacity(best.length, groups));
        }
    }

    @Override
    void add(ColumnVector input, int rows, int[] groups)
    {
        boolean hasNulls = input.hasNull();
        if (type instanceof StringType) {
            for (int row = 0; row < rows; row++) {
                if (hasNulls && input.isNullAt(row)) {
                    continue;
                }
                int group = groups == null ? 0 : groups[row];
                UTF8String value = input.getUTF8String(row);
                UTF8String current = (UTF8String) best[group];
                if (current == null || (max ? value.binaryCompare(current) > 0 : value.binaryCompare(current) < 0)) {
                    best[group] = value.copy();
                }
            }
            return;
        }
        DecimalType decimal = (DecimalType) type;
        for (int row = 0; row < rows; row++) {
            if (hasNulls && input.isNullAt(row)) {
                continue;
            }
            int group = groups == null ? 0 : groups[row];
            Decimal value = input.getDecimal(row, decimal.precision(), decimal.scale());
            Decimal current = (Decimal) best[group];
            if (current == null || (max ? value.compare(current) > 0 : value.compare(current) < 0)) {
                best[group] = value.clone();
            }
        }
    }

    @Override
    Object result(int group)
    {
        return best[group];
    }
}
