package dev.ferry.gds.read;

import dev.ferry.gds.decode.cuda.EmulatedDeviceKernels;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The device decoder ({@code CudaColumnChunkDecoder} over {@code DeviceChunkDecode}) with its kernels
 * run by the Java emulation, which has the CUDA C sources' index math, on the simulated backend:
 * for every flat column of the parquet-testing corpus, the pyarrow corpus and Spark-written files
 * (v1 and v2 pages, dictionary and PLAIN, many small pages, required and optional columns), device batches equal the CPU decoder's host batches byte for
 * byte after a copy back ({@link DeviceDecodeComparison}); chunks the kernels do not take fall back
 * per chunk with a reason; no emulated or device memory is left behind. On a GPU the same comparison
 * runs the real kernels ({@link DeviceDecodeGpuCheck}, gpu-check stage {@code device-decode}).
 */
class TestDeviceDecoderOnEmulatedKernels
{
    @RegisterExtension
    static final SimulatedDevice DEVICE = new SimulatedDevice();

    @Test
    void emulatedKernelsEqualTheCpuDecoderOverTheCorpora(@TempDir Path directory)
            throws Exception
    {
        DeviceDecodeComparison.Summary summary = DeviceDecodeComparison.run(DEVICE.runtime(), Optional.of(EmulatedDeviceKernels::new), directory);
        System.out.println("device decoder (emulated kernels): " + summary.deviceChunks() + " column chunks decoded by the kernels over "
                + summary.compared().size() + " files (" + summary.chunksDecompressedOnDevice() + " decompressed on the device, page bodies "
                + summary.pageBytesUploaded() + " bytes uploaded for " + summary.pageBytesDecoded() + " decoded); CPU fallbacks by reason: " + summary.fallbacks());
        assertTrue(summary.compared().size() >= 40, "files compared: " + summary.compared() + "; skipped: " + summary.skipped());
        assertTrue(summary.compared().stream().anyMatch(name -> name.startsWith("part-")), "Spark-written files are compared: " + summary.compared());
        assertTrue(summary.deviceChunks() > 300, "column chunks the kernels decoded (fallbacks count once per chunk): " + summary.deviceChunks());
        // Compressed chunks (Spark's snappy, the corpora's snappy/zstd/gzip/lz4-raw files) cross compressed and decompress in emulated device memory.
        assertTrue(summary.chunksDecompressedOnDevice() > 100, "chunks decompressed on the device: " + summary.chunksDecompressedOnDevice());
        assertTrue(summary.pageBytesUploaded() < summary.pageBytesDecoded(), "compressed uploads: " + summary.pageBytesUploaded() + " bytes for "
                + summary.pageBytesDecoded() + " decoded");
        assertTrue(summary.fallbacks().keySet().stream().noneMatch(reason -> reason.contains("did not decompress")), "no page fails the device decompression: " + summary.fallbacks());
        Map<String, Long> fallbacks = summary.fallbacks();
        assertTrue(fallbacks.keySet().stream().anyMatch(reason -> reason.startsWith("encoding DELTA")), "DELTA_* chunks fall back: " + fallbacks);
        assertTrue(fallbacks.keySet().stream().anyMatch(reason -> reason.startsWith("type ")), "converted types fall back: " + fallbacks);
        assertTrue(fallbacks.keySet().stream().noneMatch(reason -> reason.startsWith("BOOLEAN")), "PLAIN booleans take the kernels: " + fallbacks);
        assertEquals(0, DEVICE.runtime().deviceAllocator(0).allocatedBytes(), "every device buffer is freed");

        // A reader closed mid-row-group (a LIMIT) frees the chunk the device decoder holds.
        Path sparkFile;
        try (var files = java.nio.file.Files.list(directory.resolve("spark-v2"))) {
            sparkFile = files.filter(file -> file.getFileName().toString().endsWith(".parquet")).findFirst().orElseThrow();
        }
        EmulatedDeviceKernels kernels = (EmulatedDeviceKernels) DeviceDecodeComparison.firstDeviceBatchThenClose(DEVICE.runtime(), sparkFile, EmulatedDeviceKernels::new);
        assertEquals(0, kernels.allocatedBytes(), "emulated device memory left after closing mid-row-group");
        assertEquals(0, DEVICE.runtime().deviceAllocator(0).allocatedBytes(), "device buffers left after closing mid-row-group");
    }
}
