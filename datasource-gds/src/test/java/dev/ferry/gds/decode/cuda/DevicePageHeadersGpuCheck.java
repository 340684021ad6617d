package dev.ferry.gds.decode.cuda;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.gds.TestingFiles;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The gpu-check for the device page-header walk (not in the build's suites: its name matches no
 * test pattern): on the cuda backend {@code parquet_headers.cu} (NVRTC, driver API) walks every
 * column chunk of the parquet-testing corpus (where the machine has it) and the pyarrow corpus on the
 * classpath, and every descriptor must equal parquet-mr's reading of the same bytes
 * ({@link DevicePageHeadersComparison}); prints the pages walked per second, launches and read-backs
 * included. Skipped, with the reason, where the kernels cannot run. Never yet run on a GPU.
 */
public class DevicePageHeadersGpuCheck
{
    @Test
    public void cudaWalkEqualsParquetMrOverTheCorpora()
            throws Exception
    {
        Optional<String> unavailable = DeviceKernelsLoader.unavailableReason();
        unavailable.ifPresent(reason -> System.out.println("device page headers: unavailable: " + reason));
        assumeTrue(unavailable.isEmpty(), () -> "device page headers: " + unavailable.orElse(""));
        List<Path> files = new ArrayList<>();
        try {
            Path parquetTesting = TestingFiles.parquetTesting().resolve("data");
            if (Files.isDirectory(parquetTesting)) {
                files.addAll(DevicePageHeadersComparison.parquetFiles(parquetTesting));
            }
        }
        catch (RuntimeException e) {
            System.out.println("device page headers: parquet-testing corpus not found: " + e.getMessage());
        }
        files.addAll(DevicePageHeadersComparison.parquetFiles(Path.of(DevicePageHeadersGpuCheck.class.getResource("/corpus/pyarrow").toURI())));
        try (DeviceRuntime runtime = DeviceRuntime.create(new MapConfigSource(Map.of("spark.ferry.device", "cuda")))) {
            assumeTrue("cuda".equals(runtime.backendName()), "the cuda backend did not start: " + runtime.selectionReason());
            DeviceBufferKernels kernels = DeviceKernelsLoader.load(runtime.deviceAllocator(0));
            DevicePageHeadersComparison.Totals totals = DevicePageHeadersComparison.run(kernels, files);
            System.out.printf("device page headers: PASS %d files, %d chunks, %d pages (%d v2, %d dictionary) equal to parquet-mr on %s; %d chunks refused as "
                            + "parquet-mr refuses them; %d framing bytes read back; %.0f pages/s walking (uploads of the chunk bytes not included)%n", totals.files,
                    totals.chunks, totals.pages, totals.v2Pages, totals.dictionaryPages, kernels.describe(), totals.refusedChunks, totals.framingBytes,
                    totals.pages / (totals.walkNanos / 1e9));
            assertTrue(totals.chunks > 0, "no chunk walked");
            assertEquals(0, runtime.deviceAllocator(0).allocatedBytes(), "every device buffer is freed");
        }
    }
}
