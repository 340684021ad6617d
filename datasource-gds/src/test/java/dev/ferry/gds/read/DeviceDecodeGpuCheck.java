package dev.ferry.gds.read;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.gds.decode.cuda.DeviceKernelsLoader;
import dev.ferry.gds.io.GdsParquetDataSource;
import dev.ferry.gds.io.ReadPlanning;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The gpu-check stage {@code device-decode} (not in the build's suites: its name matches no test
 * pattern): on the cuda backend the device decoder runs the CUDA kernels (NVRTC, driver API) over
 * the corpora and every device batch must equal the CPU decoder's host batch byte for byte
 * ({@link DeviceDecodeComparison}); prints the decoded GB/s of both paths on this machine (the
 * device figure includes the pages' upload, which nvCOMP and GDS would replace). Skipped, with the
 * reason, where the kernels cannot run.
 */
public class DeviceDecodeGpuCheck
{
    @Test
    public void cudaKernelsEqualTheCpuDecoderOverTheCorpora(@TempDir Path directory)
            throws Exception
    {
        Optional<String> unavailable = DeviceKernelsLoader.unavailableReason();
        unavailable.ifPresent(reason -> System.out.println("device decode: unavailable: " + reason));
        assumeTrue(unavailable.isEmpty(), () -> "device decode: " + unavailable.orElse(""));
        try (DeviceRuntime runtime = DeviceRuntime.create(new MapConfigSource(Map.of("spark.ferry.device", "cuda")))) {
            assumeTrue("cuda".equals(runtime.backendName()), "the cuda backend did not start: " + runtime.selectionReason());
            DeviceDecodeComparison.Summary summary = DeviceDecodeComparison.run(runtime, Optional.empty(), directory);
            System.out.println("device decode: PASS " + summary.compared().size() + " files byte for byte, " + summary.deviceChunks()
                    + " column chunks on the CUDA kernels; CPU fallbacks by reason: " + summary.fallbacks());
            System.out.printf("device decode: %.3f GB/s decoded on the device path (kernels + page upload), %.3f GB/s on the CPU decoder, %d decoded bytes%n",
                    summary.deviceGigabytesPerSecond(), summary.hostGigabytesPerSecond(), summary.decodedBytes());
            System.out.println("device decode: nvCOMP decompressed " + summary.chunksDecompressedOnDevice() + " chunks on the GPU; page bodies uploaded "
                    + summary.pageBytesUploaded() + " bytes for " + summary.pageBytesDecoded() + " decoded; fallbacks naming the device decompression: "
                    + summary.fallbacks().entrySet().stream().filter(entry -> entry.getKey().contains("on the device") || entry.getKey().contains("nvCOMP")).toList());
            assertTrue(summary.deviceChunks() > 0, "no column chunk took the CUDA kernels: " + summary.fallbacks());
            assertEquals(0, runtime.deviceAllocator(0).allocatedBytes(), "every device buffer is freed");
        }
    }

    /**
     * The resident path on the GPU: each corpus file read through the GDS route on the cuda backend
     * (cuFile, or its POSIX fallback with its reason), the chunks the kernels take left in GPU memory,
     * their page headers walked by {@code parquet_headers.cu}, decompressed by nvCOMP and decoded in
     * place; every device batch equal to the CPU decoder's, row data copied back to the host printed.
     */
    @Test
    public void residentChunksThroughTheGdsRouteOnTheGpu()
            throws Exception
    {
        Optional<String> unavailable = DeviceKernelsLoader.unavailableReason();
        assumeTrue(unavailable.isEmpty(), () -> "device decode (resident): " + unavailable.orElse(""));
        try (DeviceRuntime runtime = DeviceRuntime.create(new MapConfigSource(Map.of("spark.ferry.device", "cuda")))) {
            assumeTrue("cuda".equals(runtime.backendName()), "the cuda backend did not start: " + runtime.selectionReason());
            DeviceDecodeComparison.ResidentSummary summary = DeviceDecodeComparison.residentOverCorpora(runtime, Optional.empty(),
                    path -> GdsParquetDataSource.open(runtime, 0, path, path.toString(), new ReadPlanning(1 << 20, 64 << 20, 64 << 20), Optional.empty(), 1));
            System.out.println("device decode (resident): PASS " + summary);
            assertTrue(summary.residentChunks() > 0, "no chunk was decoded where the GDS read left it: " + summary);
            assertEquals(0, runtime.deviceAllocator(0).allocatedBytes(), "every device buffer is freed");
        }
    }
}
