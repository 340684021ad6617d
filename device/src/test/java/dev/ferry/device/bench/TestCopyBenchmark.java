package dev.ferry.device.bench;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Runs the benchmark once with tiny sizes, so it cannot rot. */
public class TestCopyBenchmark
{
    @Test
    public void runsEveryRouteOnceWithTinySizes()
            throws Exception
    {
        List<BenchmarkResult> results = CopyBenchmark.run(List.of("simulated", "host"), 1 << 16, 2, true, true);
        assertEquals("memcpy (ByteBuffer put)", results.get(0).route());
        assertTrue(results.stream().anyMatch(result -> result.backend().equals("simulated") && result.route().equals("peer D2D (0->1)")), results.toString());
        assertTrue(results.stream().anyMatch(result -> result.backend().equals("simulated") && result.route().startsWith("IPC")), results.toString());
        assertTrue(results.stream().anyMatch(result -> result.backend().equals("host") && result.route().equals("file read POSIX")), results.toString());
        assertTrue(results.stream().noneMatch(result -> result.backend().equals("host") && result.route().startsWith("IPC")), "host has no IPC");
        for (BenchmarkResult result : results) {
            assertTrue(result.gigabytesPerSecond() > 0 && Double.isFinite(result.fractionOfMemcpy()), result.toString());
        }
        CopyBenchmark.main(new String[] {"--backends", "host", "--size", "64k", "--iterations", "1", "--ipc", "false", "--file-read", "false"});
    }
}
