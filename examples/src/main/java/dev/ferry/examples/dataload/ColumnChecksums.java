package dev.ferry.examples.dataload;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

import dev.ferry.gds.api.ExportedDeviceBatch;
import dev.ferry.gds.api.HostVerificationCopy;
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
 * Batches whose buffers are CUDA memory cannot be read from Java: the consumer counts them and reads
 * nothing. The check covers every batch all the same: {@link #verify} sums a verification copy of the
 * batch (copied back from device memory through the device runtime, on every backend) the same way,
 * and counts its bytes apart from the consumer's.
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

    /** What the consumer itself read: the batches handed over in host memory. */
    private final List<Column> columns = new ArrayList<>();
    /** What the verification copies of every batch hold. */
    private final List<Column> verifiedColumns = new ArrayList<>();
    private long rows;
    private long batches;
    private long deviceResidentBatches;
    private long hostBatches;
    private long verifiedRows;
    private long verifiedBatches;
    private long verificationBytes;

    ColumnChecksums(StructType schema)
    {
        for (String name : schema.fieldNames()) {
            columns.add(new Column(name, 0, 0, 0, 0));
            verifiedColumns.add(new Column(name, 0, 0, 0, 0));
        }
    }

    /** Consumes the array: reads it, then releases it through its own release callback, as a C consumer would. */
    void accept(long deviceArrayAddress, StructType schema)
    {
        ArrowDeviceArrayView view = open(deviceArrayAddress);
        try {
            batches++;
            rows += view.array().length();
            if (view.deviceType() == ArrowDeviceArrayLayout.ARROW_DEVICE_CUDA) {
                // A CUDA consumer (cuDF, a kernel of yours) would take it from here; Java cannot dereference device pointers.
                deviceResidentBatches++;
                return;
            }
            hostBatches++;
            sum(view, schema, columns);
        }
        finally {
            view.release();
        }
    }

    /**
     * The check's side, after {@link #accept}: sums the batch's verification copy (host memory, whatever the
     * consumer was handed) into the verified totals and counts its bytes as verification bytes.
     */
    void verify(ExportedDeviceBatch batch, StructType schema)
    {
        try (HostVerificationCopy copy = batch.copyToHostForVerification()) {
            ArrowDeviceArrayView view = open(copy.address());
            if (view.deviceType() != ArrowDeviceArrayLayout.ARROW_DEVICE_CPU) {
                throw new IllegalStateException("The verification copy of a batch is not in host memory: device type " + view.deviceType());
            }
            verifiedBatches++;
            verifiedRows += view.array().length();
            verificationBytes += copy.bytes();
            sum(view, schema, verifiedColumns);
        }
    }

    private static ArrowDeviceArrayView open(long deviceArrayAddress)
    {
        ArrowDeviceArrayView view = new ArrowDeviceArrayView(deviceArrayAddress);
        if (view.released()) {
            throw new IllegalArgumentException("The ArrowDeviceArray at 0x" + Long.toHexString(deviceArrayAddress) + " is already released (its release callback is NULL)");
        }
        return view;
    }

    private static void sum(ArrowDeviceArrayView view, StructType schema, List<Column> into)
    {
        ArrowDeviceArrayView.Array parent = view.array();
        long length = parent.length();
        if (parent.childCount() != schema.fields().length) {
            throw new IllegalArgumentException("The batch has " + parent.childCount() + " columns, the schema " + schema.fields().length);
        }
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
            into.set(c, into.get(c).plus(new Column(into.get(c).name(), valid, integers, doubles, bytes)));
        }
    }

    ColumnChecksums merge(ColumnChecksums other)
    {
        for (int c = 0; c < columns.size(); c++) {
            columns.set(c, columns.get(c).plus(other.columns.get(c)));
            verifiedColumns.set(c, verifiedColumns.get(c).plus(other.verifiedColumns.get(c)));
        }
        rows += other.rows;
        batches += other.batches;
        deviceResidentBatches += other.deviceResidentBatches;
        hostBatches += other.hostBatches;
        verifiedRows += other.verifiedRows;
        verifiedBatches += other.verifiedBatches;
        verificationBytes += other.verificationBytes;
        return this;
    }

    /** The consumer's own totals, over the batches it could read ({@link #hostBatches()}). */
    List<Column> columns()
    {
        return List.copyOf(columns);
    }

    /** The totals of the verification copies, over every batch verified. */
    List<Column> verifiedColumns()
    {
        return List.copyOf(verifiedColumns);
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

    long verifiedRows()
    {
        return verifiedRows;
    }

    long verifiedBatches()
    {
        return verifiedBatches;
    }

    /** Bytes copied from device to host memory for the check (never the consumer's). */
    long verificationBytes()
    {
        return verificationBytes;
    }
}
