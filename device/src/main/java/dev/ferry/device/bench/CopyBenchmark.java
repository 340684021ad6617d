package dev.ferry.device.bench;

import dev.ferry.common.FerryException;
import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceStream;
import dev.ferry.device.IpcHandle;
import dev.ferry.device.cufile.DeviceFile;
import dev.ferry.device.memory.DeviceBuffer;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Copy, IPC and device-file-read throughput per backend, each as a fraction of this machine's
 * memcpy bandwidth (a direct ByteBuffer bulk put) measured in the same run. A benchmark, not a
 * test: it prints a Markdown table and asserts nothing.
 *
 * <pre>
 * java -cp ... dev.ferry.device.bench.CopyBenchmark [--backends simulated,host,cuda] [--size 64m]
 *     [--iterations 10] [--ipc true] [--file-read true]
 * </pre>
 */
public final class CopyBenchmark
{
    private CopyBenchmark() {}

    public interface Action
    {
        void run();
    }

    public static void main(String[] args)
            throws Exception
    {
        Map<String, String> options = new HashMap<>(Map.of("--backends", "simulated,host", "--size", "64m", "--iterations", "10", "--ipc", "true", "--file-read", "true"));
        for (int i = 0; i + 1 < args.length; i += 2) {
            options.put(args[i], args[i + 1]);
        }
        long size = dev.ferry.conf.ByteSizes.parse("--size", options.get("--size"));
        int iterations = Integer.parseInt(options.get("--iterations"));
        List<String> backends = Arrays.asList(options.get("--backends").split(","));
        List<BenchmarkResult> results = run(backends, size, iterations, Boolean.parseBoolean(options.get("--ipc")), Boolean.parseBoolean(options.get("--file-read")));
        System.out.println("| backend   | route                  |     GB/s | x memcpy |");
        System.out.println("|-----------|------------------------|----------|-------|");
        results.forEach(System.out::println);
    }

    public static List<BenchmarkResult> run(List<String> backends, long size, int iterations, boolean ipc, boolean fileRead)
            throws IOException, InterruptedException
    {
        if (size > Integer.MAX_VALUE - 8192) {
            throw new IllegalArgumentException("size must fit a ByteBuffer: " + size);
        }
        Memcpy memcpy = new Memcpy(size, iterations);
        List<BenchmarkResult> results = new ArrayList<>();
        results.add(new BenchmarkResult("jvm", "memcpy (ByteBuffer put)", memcpy.measure(), 1.0));
        for (String backend : backends) {
            Map<String, String> config = new HashMap<>();
            config.put("spark.ferry.device", backend.trim());
            config.put("spark.ferry.device.simulated.capacity", String.valueOf(3 * size + (8 << 20)));
            config.put("spark.ferry.device.pinnedLimit", String.valueOf(3 * size + (8 << 20)));
            DeviceRuntime runtime;
            try {
                runtime = DeviceRuntime.create(new MapConfigSource(config));
            }
            catch (FerryException e) {
                System.err.println("Skipping backend " + backend + ": " + e.getMessage());
                continue;
            }
            try (runtime) {
                measureBackend(runtime, size, iterations, memcpy, ipc, fileRead, results);
            }
        }
        return results;
    }

    private static void measureBackend(DeviceRuntime runtime, long size, int iterations, Memcpy memcpy, boolean ipc, boolean fileRead, List<BenchmarkResult> results)
            throws IOException, InterruptedException
    {
        String name = runtime.backendName();
        int length = (int) size;
        ByteBuffer host = ByteBuffer.allocateDirect(length);
        try (DeviceStream stream = runtime.newStream(0);
                DeviceBuffer device = runtime.deviceAllocator(0).allocate(size);
                DeviceBuffer device2 = runtime.deviceAllocator(0).allocate(size);
                DeviceBuffer pinned = runtime.pinnedAllocator().allocate(size)) {
            add(results, name, "H2D (Java buffer)", memcpy, measure(iterations, size, () -> stream.copyFromHost(host.clear(), device, 0)));
            add(results, name, "D2H (Java buffer)", memcpy, measure(iterations, size, () -> stream.copyToHost(device, 0, host.clear())));
            add(results, name, "H2D (pinned)", memcpy, pinnedHostToDevice(stream, pinned, device, size, iterations));
            add(results, name, "D2H (pinned)", memcpy, measure(iterations, size, () -> {
                stream.copy(device, 0, pinned, 0, size);
                stream.synchronize();
            }));
            add(results, name, "D2D", memcpy, measure(iterations, size, () -> {
                stream.copy(device, 0, device2, 0, size);
                stream.synchronize();
            }));
            if (runtime.deviceCount() > 1 && runtime.canAccessPeer(0, 1)) {
                runtime.enablePeerAccess(0, 1);
                try (DeviceBuffer peer = runtime.deviceAllocator(1).allocate(size)) {
                    add(results, name, "peer D2D (0->1)", memcpy, measure(iterations, size, () -> {
                        stream.copy(device, 0, peer, 0, size);
                        stream.synchronize();
                    }));
                }
            }
            if (ipc && !name.equals("host")) {
                add(results, name, "IPC (child JVM D2D)", memcpy, ipcBandwidth(runtime, device, iterations));
            }
            if (fileRead) {
                fileReadBandwidth(runtime, device, iterations, memcpy, results);
            }
        }
    }

    /**
     * The pinned H2D rate of {@code runtime}'s device 0 with buffers of {@code size} bytes (median GB/s of
     * {@code iterations}), as the table's "H2D (pinned)" row measures it: for a check that sets another
     * rate beside it in the same run (gpu-check's decode-rates).
     */
    public static double pinnedHostToDevice(DeviceRuntime runtime, long size, int iterations)
    {
        try (DeviceStream stream = runtime.newStream(0);
                DeviceBuffer device = runtime.deviceAllocator(0).allocate(size);
                DeviceBuffer pinned = runtime.pinnedAllocator().allocate(size)) {
            return pinnedHostToDevice(stream, pinned, device, size, iterations);
        }
    }

    private static double pinnedHostToDevice(DeviceStream stream, DeviceBuffer pinned, DeviceBuffer device, long size, int iterations)
    {
        return measure(iterations, size, () -> {
            stream.copy(pinned, 0, device, 0, size);
            stream.synchronize();
        });
    }

    private static double ipcBandwidth(DeviceRuntime runtime, DeviceBuffer device, int iterations)
            throws IOException, InterruptedException
    {
        IpcHandle handle = runtime.exportIpc(device);
        List<String> command = List.of(Paths.get(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
                "-cp", System.getProperty("java.class.path"), IpcBenchmarkChild.class.getName(), runtime.backendName(), handle.toBase64(), String.valueOf(iterations));
        Process child = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            if (!child.waitFor(120, TimeUnit.SECONDS)) {
                throw new IOException("IPC benchmark child did not finish in 120 s");
            }
            String line;
            while ((line = out.readLine()) != null) {
                if (line.startsWith("GBPS ")) {
                    return Double.parseDouble(line.substring(5));
                }
            }
            throw new IOException("IPC benchmark child exited " + child.exitValue() + " without a result");
        }
        finally {
            child.destroyForcibly();
            runtime.reclaimIpcReleases();
        }
    }

    private static void fileReadBandwidth(DeviceRuntime runtime, DeviceBuffer device, int iterations, Memcpy memcpy, List<BenchmarkResult> results)
            throws IOException
    {
        Path file = Files.createTempFile(Paths.get(System.getProperty("ferry.bench.dir", System.getProperty("java.io.tmpdir"))), "ferry-bench-", ".bin");
        try {
            byte[] chunk = new byte[1 << 20];
            new java.util.Random(1).nextBytes(chunk);
            try (java.io.OutputStream out = Files.newOutputStream(file)) {
                for (long written = 0; written < device.length(); written += chunk.length) {
                    out.write(chunk, 0, (int) Math.min(chunk.length, device.length() - written));
                }
            }
            try (DeviceFile deviceFile = runtime.openFile(file)) {
                double gbps = measure(iterations, device.length(), () -> deviceFile.read(0, device.length(), device, 0));
                add(results, runtime.backendName(), "file read " + deviceFile.verdict().path(), memcpy, gbps);
                System.err.println(runtime.backendName() + " file read verdict: " + deviceFile.verdict());
            }
        }
        finally {
            Files.deleteIfExists(file);
        }
    }

    /**
     * Records a route against a memcpy measured right after it: on a shared or throttled machine
     * bandwidth drifts during a run, and a reference taken minutes earlier would misstate the ratio.
     */
    private static void add(List<BenchmarkResult> results, String backend, String route, Memcpy memcpy, double gbps)
    {
        results.add(new BenchmarkResult(backend, route, gbps, gbps / memcpy.measure()));
    }

    /** This machine's memcpy: a bulk put between two direct ByteBuffers, reusable across measurements. */
    private static final class Memcpy
    {
        private final ByteBuffer source;
        private final ByteBuffer target;
        private final int size;
        private final int iterations;

        Memcpy(long size, int iterations)
        {
            this.size = (int) size;
            this.iterations = iterations;
            this.source = ByteBuffer.allocateDirect(this.size);
            this.target = ByteBuffer.allocateDirect(this.size);
        }

        double measure()
        {
            return CopyBenchmark.measure(iterations, size, () -> target.put(0, source, 0, size));
        }
    }

    /** The median GB/s of {@code iterations} timed runs after two warm-ups. */
    public static double measure(int iterations, long bytes, Action action)
    {
        action.run();
        action.run();
        double[] rates = new double[Math.max(1, iterations)];
        for (int i = 0; i < rates.length; i++) {
            long start = System.nanoTime();
            action.run();
            long nanos = Math.max(1, System.nanoTime() - start);
            rates[i] = (double) bytes / nanos;
        }
        Arrays.sort(rates);
        return rates[rates.length / 2];
    }
}
