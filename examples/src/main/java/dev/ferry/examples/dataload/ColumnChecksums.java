package dev.ferry.examples.dataload;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

import dev.ferry.gds.device.ArrowDeviceArrayLayout;
import dev.ferry.gds.device.ArrowDeviceArrayView;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The example's consumer: it sees each batch only as an {@code ArrowDeviceArray} address and the
 * schema, walks the struct by the specification's offsets, and sums each column (integers exactly,
 * doubles as doubles, strings by UTF-8 byte length) and counts its valid values. A stand-in for a
 * GPU library that takes Arrow device arrays; here the sums let the caller check every value arrived.
 * Batches whose buffers are CUDA memory cannot be read from Java; they are counted, not summed.
 */
final class ColumnChecksums
        implements Serializable
{
    private static final long serialVersionUID = 1L;

    /** One column's totals. */
    record Column(String name, long valid, long integerSum, double doubleSum, long utf8Bytes)
            implements Serializable
    {
        Column plus(Column other)
        {
            return new Column(name, valid + other.valid, integerSum + other.integerSum, doubleSum + other.doubleSum, utf8Bytes + other.utf8Bytes);
        }
    }

    private final List<Column> columns = new ArrayList<>();
    private long rows;
    private long batches;
    private long deviceResidentBatches;
    private long hostBatches;

    ColumnChecksums(StructType schema)
    {
        for (String name : schema.fieldNames()) {
            columns.add(new Column(name, 0, 0, 0, 0));
        }
    }

    /** Consumes the array: reads it, then releases it through its own release callback, as a C consumer would. */
    void accept(long deviceArrayAddress, StructType schema)
    {
        ArrowDeviceArrayView view = new ArrowDeviceArrayView(deviceArrayAddress);
        if (view.released()) {
            throw new IllegalArgumentException("The ArrowDeviceArray at 0x" + Long.toHexString(deviceArrayAddress) + " is already released (its release callback is NULL)");
        }
        try {
            sum(view, schema);
        }
        finally {
            view.release();
        }
    }

    private void sum(ArrowDeviceArrayView view, StructType schema)
    {
        batches++;
        if (view.deviceType() == ArrowDeviceArrayLayout.ARROW_DEVICE_CUDA) {
            // A CUDA consumer (cuDF, a kernel of yours) would take it from here; Java cannot dereference device pointers.
            deviceResidentBatches++;
            rows += view.array().length();
            return;
        }
        hostBatches++;
        ArrowDeviceArrayView.Array parent = view.array();
        long length = parent.length();
        rows += length;
        for (int c = 0; c < parent.childCount(); c++) {
            ArrowDeviceArrayView.Array child = parent.child(c);
            DataType type = schema.fields()[c].dataType();
            long valid = 0;
            long integers = 0;
            double doubles = 0;
            long bytes = 0;
            for (long row = 0; row < length; row++) {
                if (!child.isValid(row)) {
                    continue;
                }
                valid++;
                if (type.equals(DataTypes.LongType)) {
                    integers += child.int64(1, row);
                }
                else if (type.equals(DataTypes.DoubleType)) {
                    doubles += child.float64(1, row);
                }
                else if (type.equals(DataTypes.StringType)) {
                    bytes += child.int32(1, row + 1) - child.int32(1, row);
                }
                else {
                    integers += child.int32(1, row);
                }
            }
            columns.set(c, columns.get(c).plus(new Column(columns.get(c).name(), valid, integers, doubles, bytes)));
        }
    }

    ColumnChecksums merge(ColumnChecksums other)
    {
        for (int c = 0; c < columns.size(); c++) {
            columns.set(c, columns.get(c).plus(other.columns.get(c)));
        }
        rows += other.rows;
        batches += other.batches;
        deviceResidentBatches += other.deviceResidentBatches;
        hostBatches += other.hostBatches;
        return this;
    }

    List<Column> columns()
    {
        return List.copyOf(columns);
    }

    long rows()
    {
        return rows;
    }

    long batches()
    {
        return batches;
    }

    long deviceResidentBatches()
    {
        return deviceResidentBatches;
    }

    long hostBatches()
    {
        return hostBatches;
    }
}
