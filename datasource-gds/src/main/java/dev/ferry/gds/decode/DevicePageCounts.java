package dev.ferry.gds.decode;

import java.util.Map;
import java.util.TreeMap;

/**
 * What the device decoder moved for the chunks it decoded, for one reader: bytes of page bodies
 * uploaded (as stored: compressed where the codec seam deferred them), bytes those bodies decode to
 * in device memory, bytes of page framing read back after decompression, and chunks whose bodies
 * were decompressed on the device. A compressed chunk's upload is its compressed size, and the
 * difference to the decoded size is what the CPU no longer decompresses and PCIe no longer carries.
 * Body bytes leave out the alignment padding before each compressed body (under 16 bytes each, for
 * nvCOMP), which the cuda upload also carries. One reader's thread updates it.
 */
public final class DevicePageCounts
{
    private final Map<String, Long> decompressedOnHost = new TreeMap<>();
    private long uploadedBytes;
    private long decodedBytes;
    private long framingBytes;
    private long decompressedChunks;
    private long residentChunks;
    private long residentBodiesInPlace;
    private long residentBodiesStaged;
    private long residentStagedBytes;
    private final Map<String, Long> residentGivenBack = new TreeMap<>();

    void add(long uploaded, long decoded, long framing, boolean decompressed)
    {
        uploadedBytes += uploaded;
        decodedBytes += decoded;
        framingBytes += framing;
        if (decompressed) {
            decompressedChunks++;
        }
    }

    /**
     * A resident chunk the kernels decoded where the read left it: nothing uploaded, its headers and framing read back;
     * of its compressed bodies, {@code inPlace} decompressed where they lie and {@code staged} ({@code stagedBytes})
     * copied on the device first, being off nvCOMP's alignment.
     */
    void addResident(long decoded, long framing, boolean decompressed, int inPlace, int staged, long stagedBytes)
    {
        residentChunks++;
        residentBodiesInPlace += inPlace;
        residentBodiesStaged += staged;
        residentStagedBytes += stagedBytes;
        add(0, decoded, framing, decompressed);
    }

    /** A resident chunk given back to the CPU decoder (its bytes came down once), by reason. */
    void residentGivenBack(String reason)
    {
        residentGivenBack.merge(reason, 1L, Long::sum);
    }

    void decompressedOnHost(String reason)
    {
        decompressedOnHost.merge(reason, 1L, Long::sum);
    }

    /**
     * Chunks the kernels decoded whose bodies the CPU decompressed first (nvCOMP unavailable here, or
     * a codec it has no decompressor for), by reason: their upload is the decompressed size.
     */
    public Map<String, Long> decompressedOnHost()
    {
        return Map.copyOf(decompressedOnHost);
    }

    /** Bytes of page bodies uploaded to the device, as stored in the file. */
    public long uploadedBytes()
    {
        return uploadedBytes;
    }

    /** Bytes of the uploaded page bodies once decompressed, in device memory. */
    public long decodedBytes()
    {
        return decodedBytes;
    }

    /** Bytes of page framing (v1 levels lengths, dictionary bit widths) read back from device memory. */
    public long framingBytes()
    {
        return framingBytes;
    }

    /** Chunks whose page bodies were decompressed on the device (nvCOMP on a GPU). */
    public long decompressedChunks()
    {
        return decompressedChunks;
    }

    /** Chunks the kernels decoded in the device memory a GDS read left them in: no upload, no copy back. */
    public long residentChunks()
    {
        return residentChunks;
    }

    /** Compressed bodies of resident chunks that nvCOMP decompressed where the read put them: no device copy was made for them. */
    public long residentBodiesInPlace()
    {
        return residentBodiesInPlace;
    }

    /** Compressed bodies of resident chunks off nvCOMP's alignment, each copied once on the device into a staging buffer first. */
    public long residentBodiesStaged()
    {
        return residentBodiesStaged;
    }

    /** Bytes of those staging copies ({@link #residentBodiesStaged}). */
    public long residentStagedBytes()
    {
        return residentStagedBytes;
    }

    /** Resident chunks given back to the CPU decoder (pages the kernels do not decode), by reason; each crossed back once. */
    public Map<String, Long> residentGivenBack()
    {
        return Map.copyOf(residentGivenBack);
    }

    @Override
    public String toString()
    {
        return "device pages: " + uploadedBytes + " bytes uploaded, " + decodedBytes + " decoded, " + framingBytes + " framing bytes read back, "
                + decompressedChunks + " chunks decompressed on the device, " + residentChunks + " decoded where the read left them (compressed bodies: " + residentBodiesInPlace + " decompressed in place, " + residentBodiesStaged
                + " staged, " + residentStagedBytes + " bytes)"
                + (residentGivenBack.isEmpty() ? "" : ", resident chunks given back to the CPU: " + residentGivenBack) + (decompressedOnHost.isEmpty() ? "" : ", decompressed on the CPU first: " + decompressedOnHost);
    }
}
