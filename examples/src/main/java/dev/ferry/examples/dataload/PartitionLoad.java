package dev.ferry.examples.dataload;

import java.io.Serializable;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.GpuResolution;
import dev.ferry.gds.device.ArrowDeviceArrayLayout;
import dev.ferry.gds.device.DeviceBatch;
import dev.ferry.gds.device.DeviceBatchExport;
import dev.ferry.gds.device.DeviceBatchUploader;
import dev.ferry.gds.route.ExecutorDevices;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * What one task does with its batches from the gds reader: on the executor's device runtime (the
 * one the reader itself uses, {@link ExecutorDevices}), uploads each batch to the task's device,
 * exports it as an {@code ArrowDeviceArray}, hands it to the consumer, and frees it before the next
 * batch (the reader reuses its batch objects).
 */
final class PartitionLoad
        implements FlatMapFunction<Iterator<ColumnarBatch>, PartitionLoad.Result>
{
    private static final long serialVersionUID = 1L;

    /** One task's outcome: the consumer's sums, the backend, how batches were handed over and why. */
    record Result(ColumnChecksums checksums, String backend, String deviceType, String reason, long deviceBytes)
            implements Serializable
    {
    }

    private final StructType schema;
    private final Map<String, String> deviceConf;

    PartitionLoad(StructType schema, Map<String, String> deviceConf)
    {
        this.schema = schema;
        this.deviceConf = deviceConf;
    }

    @Override
    public Iterator<Result> call(Iterator<ColumnarBatch> batches)
    {
        DeviceRuntime runtime = ExecutorDevices.runtime(deviceConf);
        // A device consumer wants its batches on the task's own GPU: one not visible here is an error, not another GPU.
        GpuResolution gpu = ExecutorDevices.taskDevice(runtime);
        int device = gpu.match().orElseThrow(() -> new IllegalStateException("GpuDataLoad cannot upload this partition's batches: " + gpu.reason())).ordinal();
        DeviceBatchUploader uploader = new DeviceBatchUploader(runtime, device);
        ColumnChecksums checksums = new ColumnChecksums(schema);
        String deviceType = "none (no batches)";
        String reason = "";
        long deviceBytes = 0;
        while (batches.hasNext()) {
            ColumnarBatch batch = batches.next();
            try (DeviceBatch onDevice = uploader.upload(batch, schema);
                    DeviceBatchExport export = DeviceBatchExport.export(runtime, onDevice)) {
                deviceBytes += onDevice.bytes();
                deviceType = ArrowDeviceArrayLayout.deviceTypeName(export.deviceType());
                reason = export.reason();
                checksums.accept(export.address(), schema);
            }
        }
        return List.of(new Result(checksums, runtime.backendName(), deviceType, reason, deviceBytes)).iterator();
    }
}
