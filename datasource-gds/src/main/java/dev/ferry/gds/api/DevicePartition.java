package dev.ferry.gds.api;

import dev.ferry.gds.device.ArrowDeviceArrayLayout;
import dev.ferry.gds.device.DeviceBatch;
import dev.ferry.gds.device.DeviceBatchExport;
import dev.ferry.gds.device.DeviceBatchSource;
import org.apache.spark.sql.types.StructType;

import java.io.IOException;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * One partition of a {@link DeviceBatches} read (or of its repartitioned output), as its function
 * sees it: the device it runs on and its batches, in that device's memory (read by the gds device
 * reader, or fetched from the maps' GPUs), exported one at a time. Not thread-safe: the function's
 * own thread.
 */
public final class DevicePartition
        implements AutoCloseable
{
    private final int partitionId;
    private final DeviceBatchSource reader;
    private final StructType schema;
    private ExportedDeviceBatch current;
    private long deviceBytes;
    private long exportHostCopyBytes;
    private String exportedAs = "none (no batches)";
    private String exportReason = "";

    /** {@code reader}'s batches, each holding the columns of {@code schema}; the reader stays its owner's to close. */
    public DevicePartition(int partitionId, DeviceBatchSource reader, StructType schema)
    {
        this.partitionId = partitionId;
        this.reader = requireNonNull(reader, "reader is null");
        this.schema = requireNonNull(schema, "schema is null");
    }

    public int partitionId()
    {
        return partitionId;
    }

    /** The device runtime's backend: {@code cuda}, {@code simulated} or {@code host}. */
    public String backend()
    {
        return reader.runtime().backendName();
    }

    /** The ordinal of the task's GPU, whose memory the batches are in. */
    public int device()
    {
        return reader.device();
    }

    /** The columns of every batch, in order (the children of each exported struct). */
    public StructType schema()
    {
        return schema;
    }

    /**
     * Frees the previous batch (releasing its array if the consumer did not) and returns the next,
     * exported as an {@code ArrowDeviceArray}; empty after the partition's last batch.
     */
    public Optional<ExportedDeviceBatch> nextBatch()
            throws IOException
    {
        closeCurrent();
        Optional<DeviceBatch> next = reader.next();
        if (next.isEmpty()) {
            return Optional.empty();
        }
        DeviceBatch batch = next.get();
        DeviceBatchExport export;
        try {
            export = DeviceBatchExport.export(reader.runtime(), batch);
        }
        catch (RuntimeException e) {
            batch.close();
            throw e;
        }
        current = new ExportedDeviceBatch(reader.runtime(), batch, export);
        deviceBytes += batch.bytes();
        if (export.deviceType() != ArrowDeviceArrayLayout.ARROW_DEVICE_CUDA) {
            exportHostCopyBytes += batch.bytes();
        }
        exportedAs = ArrowDeviceArrayLayout.deviceTypeName(export.deviceType());
        exportReason = export.reason();
        return Optional.of(current);
    }

    /** Bytes of column data of the batches handed out so far. */
    public long deviceBytes()
    {
        return deviceBytes;
    }

    /** Of those, bytes the export copied back to host memory for the consumer (a backend that lends no device address). */
    public long exportHostCopyBytes()
    {
        return exportHostCopyBytes;
    }

    /** How the last batch was handed over ({@code ARROW_DEVICE_CUDA}, {@code ARROW_DEVICE_CPU}). */
    public String exportedAs()
    {
        return exportedAs;
    }

    public String exportReason()
    {
        return exportReason;
    }

    private void closeCurrent()
    {
        if (current != null) {
            ExportedDeviceBatch closing = current;
            current = null;
            closing.close();
        }
    }

    /** Frees the batch still out; the reader is closed by its owner. */
    @Override
    public void close()
    {
        closeCurrent();
    }
}
