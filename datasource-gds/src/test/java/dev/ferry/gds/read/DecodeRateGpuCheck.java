package dev.ferry.gds.read;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.bench.CopyBenchmark;
import dev.ferry.gds.decode.cuda.DeviceKernelsLoader;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The gpu-check stage {@code decode-rates} (issue 18's rate targets; not in the build's suites: its name
 * matches no test pattern). Generates a lineitem-like table written uncompressed, snappy and zstd
 * ({@link DecodeRateCorpus}), loads every file into host memory, then per codec measures, with all cores:
 * the device path's decoded GB/s (pages in host memory to Arrow buffers in device memory, several
 * threads each with its own stream) and the CPU decoder's decoded GB/s (one thread per core over the
 * files), beside the pinned H2D rate measured in the same run ({@link CopyBenchmark#pinnedHostToDevice}).
 * Prints a table and the verdict against the targets (device GB/s at least the pinned H2D rate, and at
 * least 10x the CPU decoder); on cuda a missed target fails the stage. On simulated it is a dry run of the
 * same code: the "device" is shared memory and its decoder the CPU's, so the figures mean nothing and
 * the output says so.
 * <p>
 * System properties: {@code spark.ferry.device} (cuda, the default, or simulated), {@code ferry.decode.rates.rows}
 * (rows per codec, default 2,000,000: about 270 MB decoded), {@code ferry.decode.rates.threads} (default: the cores),
 * {@code ferry.decode.rates.budgetSeconds} (per pass, default 5: a pass takes no new file after it),
 * {@code ferry.decode.rates.batchRows} (default 262,144).
 */
public class DecodeRateGpuCheck
{
    private static final double CPU_MULTIPLE_TARGET = 10.0;
    private static final long PINNED_COPY_BYTES = 256L << 20;

    @Test
    public void decodedGigabytesPerSecondPerCodecAgainstPinnedHostToDeviceAndTheCpuDecoder(@TempDir Path directory)
            throws Exception
    {
        String backend = System.getProperty("spark.ferry.device", "cuda");
        long rows = Long.getLong("ferry.decode.rates.rows", 2_000_000L);
        int cores = Runtime.getRuntime().availableProcessors();
        int threads = Integer.getInteger("ferry.decode.rates.threads", cores);
        long budgetNanos = Long.getLong("ferry.decode.rates.budgetSeconds", 5L) * 1_000_000_000L;
        int batchRows = Integer.getInteger("ferry.decode.rates.batchRows", 262_144);
        boolean dryRun = !"cuda".equals(backend);
        if (!dryRun) {
            Optional<String> unavailable = DeviceKernelsLoader.unavailableReason();
            unavailable.ifPresent(reason -> System.out.println("decode rates: unavailable: " + reason));
            assumeTrue(unavailable.isEmpty(), () -> "decode rates: " + unavailable.orElse(""));
        }
        else {
            System.out.println("decode rates: DRY RUN on the '" + backend + "' backend: device memory is shared memory and the device decoder is the CPU"
                    + " decoder writing into it, so every figure below is meaningless; the same code measures the cuda backend on a GPU");
        }
        Map<String, String> config = new LinkedHashMap<>();
        config.put("spark.ferry.device", backend);
        config.put("spark.ferry.device.pinnedLimit", String.valueOf(PINNED_COPY_BYTES + (1L << 30)));
        config.put("spark.ferry.device.simulated.capacity", String.valueOf(1L << 30));
        try (DeviceRuntime runtime = DeviceRuntime.create(new MapConfigSource(config))) {
            assumeTrue(backend.equals(runtime.backendName()), "the " + backend + " backend did not start: " + runtime.selectionReason());
            double pinned = CopyBenchmark.pinnedHostToDevice(runtime, PINNED_COPY_BYTES, 10);
            System.out.printf(Locale.ROOT, "decode rates: pinned H2D %.2f GB/s (%d MiB, median of 10, this run); %d rows per codec, %d threads on %d cores,"
                    + " batches of %d rows, %d s budget per pass%n", pinned, PINNED_COPY_BYTES >> 20, rows, threads, cores, batchRows, budgetNanos / 1_000_000_000L);
            List<Row> table = new ArrayList<>();
            SparkSession spark = SparkSession.builder().master("local[" + cores + "]").appName("ferry-decode-rates")
                    .config("spark.ui.enabled", "false")
                    .config("spark.sql.session.timeZone", "UTC")
                    .getOrCreate();
            spark.sparkContext().setLogLevel("ERROR");
            try {
                for (String codec : DecodeRateCorpus.CODECS) {
                    table.add(measure(spark, runtime, directory, codec, rows, Math.max(threads, 2 * cores), threads, batchRows, budgetNanos));
                }
            }
            finally {
                spark.stop();
            }
            List<String> missed = report(table, pinned, dryRun);
            long decodedBytes = table.get(0).cpu().decodedBytes();
            for (Row row : table) {
                if (row.device().complete() && row.cpu().complete()) {
                    assertEquals(row.cpu().decodedBytes(), row.device().decodedBytes(), row.codec() + ": the device path and the CPU decoder decoded different byte counts");
                    assertEquals(decodedBytes, row.cpu().decodedBytes(), row.codec() + ": the same rows decode to a different byte count than " + table.get(0).codec());
                }
            }
            assertEquals(0, runtime.deviceAllocator(0).allocatedBytes(), "every device buffer is freed");
            assertTrue(dryRun || missed.isEmpty(), "decode rates: targets missed: " + String.join("; ", missed));
        }
    }

    /** One codec's measurements. */
    private record Row(String codec, long fileBytes, int files, DecodeRatePass.Result device, DecodeRatePass.Result cpu)
    {
    }

    private static Row measure(SparkSession spark, DeviceRuntime runtime, Path directory, String codec, long rows, int files, int threads, int batchRows,
            long budgetNanos)
            throws Exception
    {
        long began = System.nanoTime();
        List<Path> paths = DecodeRateCorpus.write(spark, directory, codec, rows, files);
        long fileBytes = 0;
        List<DeviceDecodeComparison.OpenedFile> opened = new ArrayList<>();
        for (Path path : paths) {
            fileBytes += Files.size(path);
            opened.add(DeviceDecodeComparison.OpenedFile.of(path, DeviceDecodeComparison.settings(), DeviceDecodeComparison.readOptions()));
        }
        long written = System.nanoTime() - began;
        DecodeRatePass pass = new DecodeRatePass(opened, threads, batchRows, budgetNanos);
        // Warm-ups (JIT, the kernels' first compile and load), each bounded by the same budget, then the timed passes.
        pass.run(Optional.of(runtime));
        DecodeRatePass.Result device = pass.run(Optional.of(runtime));
        pass.run(Optional.empty());
        DecodeRatePass.Result cpu = pass.run(Optional.empty());
        System.out.printf(Locale.ROOT, "decode rates: %s: %d files, %.1f MB in files, written in %.1f s; device fallbacks %s%n", codec, paths.size(), fileBytes / 1e6,
                written / 1e9, device.fallbacks());
        return new Row(codec, fileBytes, paths.size(), device, cpu);
    }

    /** Prints the table and the verdict; returns the targets missed. */
    private static List<String> report(List<Row> table, double pinned, boolean dryRun)
    {
        System.out.println();
        System.out.println("| codec | decoded MB | file MB | device GB/s | device decode share | CPU GB/s | device / CPU | device / pinned H2D | verdict |");
        System.out.println("|---|---|---|---|---|---|---|---|---|");
        List<String> missed = new ArrayList<>();
        for (Row row : table) {
            double device = row.device().gigabytesPerSecond();
            double cpu = row.cpu().gigabytesPerSecond();
            List<String> rowMissed = new ArrayList<>();
            if (device < pinned) {
                rowMissed.add(String.format(Locale.ROOT, "%s: device %.2f GB/s < pinned H2D %.2f GB/s", row.codec(), device, pinned));
            }
            if (device < CPU_MULTIPLE_TARGET * cpu) {
                rowMissed.add(String.format(Locale.ROOT, "%s: device %.2f GB/s < %.0fx the CPU decoder's %.2f GB/s", row.codec(), device, CPU_MULTIPLE_TARGET, cpu));
            }
            missed.addAll(rowMissed);
            String verdict = dryRun ? "dry run (not judged)" : rowMissed.isEmpty() ? "MET" : "MISSED";
            System.out.printf(Locale.ROOT, "| %s | %.1f | %.1f | %.3f%s | %.0f%% | %.3f%s | %.2fx | %.3fx | %s |%n", row.codec(), row.cpu().decodedBytes() / 1e6,
                    row.fileBytes() / 1e6, device, partial(row.device()), 100.0 * row.device().decodeShare(), cpu, partial(row.cpu()), device / cpu, device / pinned, verdict);
        }
        System.out.println();
        System.out.println("device GB/s: decoded bytes / wall time of the device path, pages in host memory to Arrow buffers in device memory (page loading,"
                + " decompression, decode, uploads of CPU-decoded fallback chunks, stream syncs); device decode share: the readers' time inside nextOnDevice's"
                + " column decode over the threads' wall time (the kernels alone are not timed apart from their launches and copies)");
        if (dryRun) {
            System.out.println("decode rates: dry run passed (the code path ran on every codec; the figures are not the GPU's)");
        }
        else {
            System.out.println(missed.isEmpty() ? "decode rates: targets MET for every codec (>= pinned H2D and >= 10x the CPU decoder)"
                    : "decode rates: targets MISSED: " + String.join("; ", missed));
        }
        return missed;
    }

    private static String partial(DecodeRatePass.Result result)
    {
        return result.complete() ? "" : " (" + result.filesDone() + "/" + result.files() + " files in the budget)";
    }
}
