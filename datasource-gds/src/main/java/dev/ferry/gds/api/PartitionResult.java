package dev.ferry.gds.api;

import java.io.Serializable;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

import static java.util.Objects.requireNonNull;

/**
 * What one partition of a {@link DeviceBatches} read sends back to the driver: the function's value
 * and the read's counters.
 *
 * @param partition the partition's index
 * @param value what the partition's function returned
 * @param backend the device runtime's backend ({@code cuda}, {@code simulated}, {@code host})
 * @param device the GPU ordinal the batches were in
 * @param batches device batches read
 * @param rows rows in them
 * @param deviceBytes decoded column bytes the batches held in device memory
 * @param decodedHostBytes of those, bytes decoded into host memory and uploaded (chunks the device decoder refused, or a backend without one)
 * @param decodedDeviceBytes of those, bytes decoded straight into device memory
 * @param deviceFallbacks column chunks decoded on the CPU because the device decoder refused them, by reason
 * @param bytesByRoute file bytes read, by I/O route (HOST, BOUNCE, GDS)
 * @param exportedAs how the last batch was handed over ({@code ARROW_DEVICE_CUDA}, {@code ARROW_DEVICE_CPU})
 * @param exportReason why
 * @param exportHostCopyBytes bytes the export copied back to host memory for the consumer because the backend lends no device address (0 on cuda)
 * @param devicePages what the device decoder's kernels uploaded (compressed where nvCOMP decompresses on the device) and read back
 */
public record PartitionResult<R extends Serializable>(int partition, R value, String backend, int device, long batches, long rows, long deviceBytes,
        long decodedHostBytes, long decodedDeviceBytes, Map<String, Long> deviceFallbacks, Map<String, Long> bytesByRoute, String exportedAs,
        String exportReason, long exportHostCopyBytes, DevicePageTraffic devicePages)
        implements Serializable
{
    public PartitionResult
    {
        deviceFallbacks = Collections.unmodifiableMap(new TreeMap<>(deviceFallbacks));
        bytesByRoute = Collections.unmodifiableMap(new TreeMap<>(bytesByRoute));
        requireNonNull(devicePages, "devicePages is null");
    }

    /** Column chunks the device decoder refused, all reasons together. */
    public long fallbackChunks()
    {
        return deviceFallbacks.values().stream().mapToLong(Long::longValue).sum();
    }
}
