package dev.ferry.gds.api;

import java.io.Serializable;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the device decoder's kernels moved for the column chunks they decoded in one partition:
 * page bodies uploaded (as stored in the file: compressed where nvCOMP decompresses them on the
 * device), the bytes those bodies decode to in device memory, page framing read back after
 * decompression, chunks decompressed on the device, chunks the CPU decompressed first because
 * the device could not (by reason), chunks decoded where a GDS read left them in device memory
 * (nothing uploaded, nothing copied back), of their compressed bodies those nvCOMP read where they lay and those first
 * copied on the device into an aligned staging buffer (with those copies' bytes), and such chunks given back to the CPU (by reason). All zero where no kernel decoded anything (the {@code simulated}
 * backend's decoder is the CPU decoder writing into device memory; refused chunks are in
 * {@link PartitionResult#deviceFallbacks()}).
 */
public record DevicePageTraffic(long uploadedBytes, long decodedBytes, long framingBytes, long chunksDecompressedOnDevice, Map<String, Long> decompressedOnHost,
        long residentChunks, long residentBodiesInPlace, long residentBodiesStaged, long residentStagedBytes, Map<String, Long> residentGivenBack)
        implements Serializable
{
    private static final long serialVersionUID = 1L;

    public static final DevicePageTraffic NONE = new DevicePageTraffic(0, 0, 0, 0, Map.of(), 0, 0, 0, 0, Map.of());

    public DevicePageTraffic
    {
        decompressedOnHost = Collections.unmodifiableMap(new TreeMap<>(decompressedOnHost));
        residentGivenBack = Collections.unmodifiableMap(new TreeMap<>(residentGivenBack));
    }

    public DevicePageTraffic plus(DevicePageTraffic other)
    {
        Map<String, Long> reasons = new TreeMap<>(decompressedOnHost);
        other.decompressedOnHost.forEach((reason, chunks) -> reasons.merge(reason, chunks, Long::sum));
        Map<String, Long> givenBack = new TreeMap<>(residentGivenBack);
        other.residentGivenBack.forEach((reason, chunks) -> givenBack.merge(reason, chunks, Long::sum));
        return new DevicePageTraffic(uploadedBytes + other.uploadedBytes, decodedBytes + other.decodedBytes, framingBytes + other.framingBytes,
                chunksDecompressedOnDevice + other.chunksDecompressedOnDevice, reasons, residentChunks + other.residentChunks,
                residentBodiesInPlace + other.residentBodiesInPlace, residentBodiesStaged + other.residentBodiesStaged, residentStagedBytes + other.residentStagedBytes,
                givenBack);
    }

    @Override
    public String toString()
    {
        return String.format(java.util.Locale.ROOT, "page bodies %,d bytes uploaded for %,d decoded, %,d framing bytes read back, %d chunks decompressed on the device%s, "
                        + "%d chunks decoded where the read left them (compressed bodies: %d read in place, %d staged, %,d bytes)%s",
                uploadedBytes, decodedBytes, framingBytes, chunksDecompressedOnDevice, decompressedOnHost.isEmpty() ? "" : ", decompressed on the CPU first: " + decompressedOnHost,
                residentChunks, residentBodiesInPlace, residentBodiesStaged, residentStagedBytes, residentGivenBack.isEmpty() ? "" : ", given back to the CPU: " + residentGivenBack);
    }
}
