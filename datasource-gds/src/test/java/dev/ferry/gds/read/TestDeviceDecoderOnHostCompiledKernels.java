package dev.ferry.gds.read;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.gds.decode.cuda.HostCompiledKernels;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The device decoder on the kernels' own CUDA C sources, compiled for the host by {@code c++} and run
 * once per (block, thread) ({@link HostCompiledKernels}): device batches over the corpora equal the
 * CPU decoder's byte for byte ({@link DeviceDecodeComparison}). Where the Java emulation test checks
 * the decoder's host side, this checks the .cu files themselves. Skipped without {@code c++}.
 */
class TestDeviceDecoderOnHostCompiledKernels
{
    @TempDir
    static Path build;
    private static DeviceRuntime runtime;

    @BeforeAll
    static void start()
            throws Exception
    {
        assumeTrue(HostCompiledKernels.build(build).isPresent(), "no c++ on PATH: the kernel sources were not run on the host");
        runtime = DeviceRuntime.create(new MapConfigSource(Map.of("spark.ferry.device", "simulated", "spark.ferry.device.simulated.capacity", "256m")));
    }

    @AfterAll
    static void stop()
    {
        if (runtime != null) {
            runtime.close();
        }
    }

    @Test
    void kernelSourcesEqualTheCpuDecoderOverTheCorpora(@TempDir Path directory)
            throws Exception
    {
        DeviceDecodeComparison.Summary summary = DeviceDecodeComparison.run(runtime, Optional.of(HostCompiledKernels::new), directory);
        System.out.println("device decoder (CUDA C sources on the host): " + summary.deviceChunks() + " column chunks decoded by the kernels over "
                + summary.compared().size() + " files");
        assertTrue(summary.compared().size() >= 40, "files compared: " + summary.compared() + "; skipped: " + summary.skipped());
        assertTrue(summary.deviceChunks() > 300, "column chunks the kernels decoded (fallbacks count once per chunk): " + summary.deviceChunks());
        assertEquals(0, runtime.deviceAllocator(0).allocatedBytes(), "every device buffer is freed");
    }
}
