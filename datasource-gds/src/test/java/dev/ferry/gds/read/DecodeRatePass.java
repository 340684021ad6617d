package dev.ferry.gds.read;

import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceStream;
import dev.ferry.gds.GdsReadSettings;
import dev.ferry.gds.device.ArrowDeviceUpload;
import dev.ferry.gds.device.DeviceBatch;
import dev.ferry.gds.device.DeviceTarget;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.parquet.ParquetReadOptions;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static java.util.Objects.requireNonNull;

/**
 * One timed pass of decode-rates over files already in host memory: {@code threads} threads take
 * files from a shared queue and decode every row group, either on the device path (pages in host
 * memory to Arrow buffers in device memory: {@link ParquetSliceReader#nextOnDevice}, each thread
 * with its own stream) or on the CPU decoder ({@link ParquetSliceReader#next}, host Arrow vectors).
 * A pass takes no new file once its time budget is spent, so a slow path cannot blow the stage's
 * cap; its rate then covers the files it finished, and {@link Result#filesDone()} says how many.
 */
final class DecodeRatePass
{
    /** What a pass measured: decoded bytes in the wall time of the files it finished. */
    record Result(long decodedBytes, long wallNanos, long decodeNanos, int threads, int filesDone, int files, Map<String, Long> fallbacks)
    {
        double gigabytesPerSecond()
        {
            return decodedBytes / (double) Math.max(1, wallNanos);
        }

        /** The readers' time inside their column decode over the threads' wall time. */
        double decodeShare()
        {
            return Math.min(1.0, decodeNanos / ((double) Math.max(1, wallNanos) * Math.min(threads, Math.max(1, files))));
        }

        boolean complete()
        {
            return filesDone == files;
        }
    }

    private final List<DeviceDecodeComparison.OpenedFile> files;
    private final int threads;
    private final int batchRows;
    private final long budgetNanos;

    DecodeRatePass(List<DeviceDecodeComparison.OpenedFile> files, int threads, int batchRows, long budgetNanos)
    {
        this.files = List.copyOf(requireNonNull(files, "files is null"));
        if (threads < 1 || batchRows < 1) {
            throw new IllegalArgumentException("threads and batchRows must be positive: " + threads + ", " + batchRows);
        }
        this.threads = threads;
        this.batchRows = batchRows;
        this.budgetNanos = budgetNanos;
    }

    /** The device path on {@code runtime}'s device 0 ({@code Optional} runtime empty: the CPU decoder). */
    Result run(Optional<DeviceRuntime> runtime)
            throws Exception
    {
        AtomicInteger next = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        long began = System.nanoTime();
        long deadline = began + budgetNanos;
        List<Future<long[]>> workers = new ArrayList<>();
        Map<String, Long> fallbacks = new TreeMap<>();
        try {
            for (int i = 0; i < threads; i++) {
                workers.add(pool.submit(() -> decodeFiles(runtime, next, deadline, fallbacks)));
            }
            long bytes = 0;
            long decodeNanos = 0;
            int done = 0;
            for (Future<long[]> worker : workers) {
                long[] totals = worker.get();
                bytes += totals[0];
                decodeNanos += totals[1];
                done += (int) totals[2];
            }
            return new Result(bytes, System.nanoTime() - began, decodeNanos, threads, done, files.size(), fallbacks);
        }
        finally {
            pool.shutdownNow();
        }
    }

    // One thread's share: {decoded bytes, the reader's decode nanos, files finished}.
    private long[] decodeFiles(Optional<DeviceRuntime> runtime, AtomicInteger next, long deadline, Map<String, Long> fallbacks)
            throws Exception
    {
        // The data source's options: its codec seam lets the device decoder take pages compressed (nvCOMP on cuda).
        ParquetReadOptions options = DeviceDecodeComparison.readOptions();
        GdsReadSettings settings = DeviceDecodeComparison.settings();
        long[] totals = new long[3];
        try (RootAllocator allocator = new RootAllocator();
                DeviceStream stream = runtime.isPresent() ? runtime.get().newStream(0) : null) {
            int index;
            while (System.nanoTime() < deadline && (index = next.getAndIncrement()) < files.size()) {
                try (ParquetSliceReader reader = files.get(index).reader(settings, options, allocator)) {
                    if (runtime.isPresent()) {
                        DeviceTarget target = new DeviceTarget(runtime.get(), 0, stream);
                        Optional<DeviceBatch> batch;
                        while ((batch = reader.nextOnDevice(batchRows, target)).isPresent()) {
                            try (DeviceBatch device = batch.get()) {
                                totals[0] += device.bytes();
                            }
                        }
                        synchronized (fallbacks) {
                            reader.deviceFallbacks().forEach((reason, chunks) -> fallbacks.merge(reason, chunks, Long::sum));
                        }
                    }
                    else {
                        Optional<DecodedBatch> batch;
                        while ((batch = reader.next(batchRows)).isPresent()) {
                            for (FieldVector vector : batch.get().columns()) {
                                try (vector) {
                                    totals[0] += ArrowDeviceUpload.lengths(vector).stream().mapToLong(Long::longValue).sum();
                                }
                            }
                        }
                    }
                    totals[1] += reader.decodeNanos();
                    totals[2]++;
                }
            }
        }
        return totals;
    }
}
