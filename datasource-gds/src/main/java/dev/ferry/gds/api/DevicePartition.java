package dev.ferry.gds.api;

import dev.ferry.gds.device.ArrowDeviceArrayLayout;
import dev.ferry.gds.device.DeviceBatch;
import dev.ferry.gds.device.DeviceBatchExport;
import dev.ferry.gds.spark.GdsDeviceBatchReader;
import org.apache.spark.sql.types.StructType;

import java.io.IOException;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * One partition of a {@link DeviceBatches} read, as its function sees it: the device it runs on and
 * its batches, read by the gds device reader into that device's memory and exported one at a time.
 * Not thread-safe: the function's own thread.
 */
public final class DevicePartition
        implements AutoCloseable
{
    private final int partitionId;
    private final GdsDeviceBatchReader reader;
    private final StructType schema;
    private ExportedDeviceBatch current;
    private long deviceBytes;
    private long exportHostCopyBytes;
    private String exportedAs = "none (no batches)";
    private String exportReason = "";

    DevicePartition(int partitionId, GdsDeviceBatchReader reader, StructType schema)
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
        current = new ExportedDeviceBatch(batch, export);
        deviceBytes += batch.bytes();
        if (export.deviceType() != ArrowDeviceArrayLayout.ARROW_DEVICE_CUDA) {
            exportHostCopyBytes += batch.bytes();
        }
        exportedAs = ArrowDeviceArrayLayout.deviceTypeName(export.deviceType());
        exportReason = export.reason();
        return Optional.of(current);
    }

    long deviceBytes()
    {
        return deviceBytes;
    }

    long exportHostCopyBytes()
    {
        return exportHostCopyBytes;
    }

    String exportedAs()
    {
        return exportedAs;
    }

    String exportReason()
    {
        return exportReason;
    }

    GdsDeviceBatchReader.Counters counters()
    {
        return reader.counters();
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
