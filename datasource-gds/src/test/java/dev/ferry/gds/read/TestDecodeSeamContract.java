package dev.ferry.gds.read;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The decode seam's contract on the simulated backend: for every flat column of the parquet-testing
 * corpus, the pyarrow corpus and Spark-written files, the device path (chunks the backend's device
 * decoder takes decoded through {@code decodeToDevice}: on this backend the CPU decoder writing into
 * simulated device memory; the rest decoded on the CPU and uploaded, counted by reason) gives the same
 * Arrow buffers, byte for byte after a copy back, as the host path ({@link DeviceDecodeComparison}
 * does the comparison); the fallback chunks' decoded bytes and the device-decoded chunks' pages
 * cross from the host as counted host-to-device copies, and no device memory is left behind.
 */
class TestDecodeSeamContract
{
    @RegisterExtension
    static final SimulatedDevice DEVICE = new SimulatedDevice();

    @Test
    void deviceBuffersEqualHostBuffersOverTheCorpora(@TempDir Path directory)
            throws Exception
    {
        DeviceDecodeComparison.Summary summary = DeviceDecodeComparison.run(DEVICE.runtime(), Optional.empty(), directory);

        assertTrue(summary.compared().size() >= 40, "files compared: " + summary.compared() + "; skipped (host read refused them): " + summary.skipped());
        assertTrue(summary.compared().stream().filter(name -> name.startsWith("part-")).count() >= 3, "every Spark-written corpus is compared: " + summary.compared());
        assertTrue(summary.deviceChunks() > 0, "some chunks take the device decoder");
        assertTrue(summary.fallbacks().keySet().stream().anyMatch(reason -> reason.startsWith("encoding DELTA")), "DELTA_* chunks fall back: " + summary.fallbacks());
        assertTrue(summary.fallbacks().keySet().stream().anyMatch(reason -> reason.startsWith("type ")), "converted types fall back: " + summary.fallbacks());
        // The simulated device decoder writes into simulated device memory: only the fallback chunks cross from the host.
        assertTrue(summary.decodedDeviceBytes() > 0, "decoded straight into device memory: " + summary.decodedDeviceBytes());
        assertTrue(summary.decodedHostBytes() > 0, "fallback chunks are decoded on the host: " + summary.decodedHostBytes());
        assertEquals(summary.decodedBytes(), summary.decodedHostBytes() + summary.decodedDeviceBytes(), "every compared byte is counted once");
        // Host-to-device copies: the fallback chunks' decoded bytes, plus the pages of the device-decoded chunks (uploaded as the cuda decoder does).
        assertTrue(summary.hostToDeviceBytes() > summary.decodedHostBytes(), "pages of device-decoded chunks are uploaded: " + summary.hostToDeviceBytes()
                + " bytes copied up, " + summary.decodedHostBytes() + " of them decoded on the host");
        assertEquals(0, DEVICE.runtime().deviceAllocator(0).allocatedBytes(), "every device buffer is freed");
    }
}
