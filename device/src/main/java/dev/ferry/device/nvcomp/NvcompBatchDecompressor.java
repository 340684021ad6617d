package dev.ferry.device.nvcomp;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.cuda.global.nvcomp;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.LongPointer;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.javacpp.SizeTPointer;

import static java.util.Objects.requireNonNull;

/**
 * Decompresses a batch of chunks that sit in device memory (a row group's compressed pages) into
 * device buffers with one nvCOMP batched call: the chunk pointer and size arrays are copied to the
 * device (nvCOMP reads them there), temporary space is sized by {@code *DecompressGetTempSizeAsync},
 * and after the call each chunk's status and actual size are checked. A chunk that fails or comes
 * out at another size than its page header says is reported by index; the caller decompresses it
 * on the CPU instead, counting the reason. Only use after {@link NvcompProbe#availability()} and
 * the kernel probe said available (a current CUDA context). Never yet run on a GPU.
 */
public final class NvcompBatchDecompressor
{
    /** The outcome per chunk: null where it decompressed to its expected size, else why not. */
    public record Outcome(String[] failures)
    {
        public boolean allDecompressed()
        {
            for (String failure : failures) {
                if (failure != null) {
                    return false;
                }
            }
            return true;
        }
    }

    private NvcompBatchDecompressor() {}

    /**
     * Decompresses chunk i from {@code compressed[i]} ({@code compressedBytes[i]} bytes, device
     * address) into {@code output[i]} (device address, {@code outputBytes[i]} bytes expected), all
     * on the default stream, and waits.
     */
    public static Outcome decompress(NvcompCodec codec, long[] compressed, long[] compressedBytes, long[] output, long[] outputBytes)
    {
        requireNonNull(codec, "codec is null");
        int chunks = compressed.length;
        if (compressedBytes.length != chunks || output.length != chunks || outputBytes.length != chunks) {
            throw new IllegalArgumentException("chunk arrays of different lengths");
        }
        String[] failures = new String[chunks];
        if (chunks == 0) {
            return new Outcome(failures);
        }
        long maxChunk = 0;
        long total = 0;
        for (long bytes : outputBytes) {
            maxChunk = Math.max(maxChunk, bytes);
            total += bytes;
        }
        long arrays = 0;
        long temp = 0;
        try {
            // One device allocation holds the five per-chunk arrays nvCOMP reads and writes.
            long arrayBytes = 8L * chunks;
            arrays = allocate(5 * arrayBytes + 4L * chunks);
            long compressedPointers = arrays;
            long compressedSizes = arrays + arrayBytes;
            long outputCapacities = arrays + 2 * arrayBytes;
            long actualSizes = arrays + 3 * arrayBytes;
            long outputPointers = arrays + 4 * arrayBytes;
            long statuses = arrays + 5 * arrayBytes;
            upload(compressed, compressedPointers);
            upload(compressedBytes, compressedSizes);
            upload(outputBytes, outputCapacities);
            upload(output, outputPointers);
            long tempBytes = tempBytes(codec, chunks, maxChunk, total);
            temp = allocate(Math.max(1, tempBytes));
            int status = run(codec, at(compressedPointers), at(compressedSizes), at(outputCapacities), at(actualSizes), chunks, at(temp), tempBytes,
                    at(outputPointers), at(statuses));
            if (status != nvcomp.nvcompSuccess) {
                throw new FerryException(ErrorCategory.EXTERNAL, "nvCOMP " + codec + " batched decompression of " + chunks + " chunks failed with nvcompStatus " + status);
            }
            check(cudart.cuCtxSynchronize(), "cuCtxSynchronize after nvCOMP " + codec + " decompression");
            long[] actual = download(actualSizes, chunks);
            int[] chunkStatuses = downloadInts(statuses, chunks);
            for (int i = 0; i < chunks; i++) {
                if (chunkStatuses[i] != nvcomp.nvcompSuccess) {
                    failures[i] = "nvCOMP " + codec + " status " + chunkStatuses[i];
                }
                else if (actual[i] != outputBytes[i]) {
                    failures[i] = "nvCOMP " + codec + " gave " + actual[i] + " bytes, the page header says " + outputBytes[i];
                }
            }
            return new Outcome(failures);
        }
        finally {
            if (temp != 0) {
                cudart.cuMemFree(temp);
            }
            if (arrays != 0) {
                cudart.cuMemFree(arrays);
            }
        }
    }

    private static long tempBytes(NvcompCodec codec, int chunks, long maxChunk, long total)
    {
        try (SizeTPointer size = new SizeTPointer(1)) {
            int status = switch (codec) {
                case SNAPPY -> nvcomp.nvcompBatchedSnappyDecompressGetTempSizeAsync(chunks, maxChunk, nvcomp.nvcompBatchedSnappyDecompressDefaultOpts(), size, total);
                case ZSTD -> nvcomp.nvcompBatchedZstdDecompressGetTempSizeAsync(chunks, maxChunk, nvcomp.nvcompBatchedZstdDecompressDefaultOpts(), size, total);
                case LZ4_RAW -> nvcomp.nvcompBatchedLZ4DecompressGetTempSizeAsync(chunks, maxChunk, nvcomp.nvcompBatchedLZ4DecompressDefaultOpts(), size, total);
                case GZIP -> nvcomp.nvcompBatchedGzipDecompressGetTempSizeAsync(chunks, maxChunk, nvcomp.nvcompBatchedGzipDecompressDefaultOpts(), size, total);
                case DEFLATE -> nvcomp.nvcompBatchedDeflateDecompressGetTempSizeAsync(chunks, maxChunk, nvcomp.nvcompBatchedDeflateDecompressDefaultOpts(), size, total);
            };
            if (status != nvcomp.nvcompSuccess) {
                throw new FerryException(ErrorCategory.EXTERNAL, "nvCOMP " + codec + " temp size query failed with nvcompStatus " + status);
            }
            return size.get();
        }
    }

    private static int run(NvcompCodec codec, Pointer compressedPointers, Pointer compressedSizes, Pointer capacities, Pointer actual, long chunks,
            Pointer temp, long tempBytes, Pointer outputPointers, Pointer statuses)
    {
        SizeTPointer sizes = new SizeTPointer(compressedSizes);
        SizeTPointer outputs = new SizeTPointer(capacities);
        SizeTPointer actualSizes = new SizeTPointer(actual);
        IntPointer status = new IntPointer(statuses);
        CUstream_st stream = null;
        return switch (codec) {
            case SNAPPY -> nvcomp.nvcompBatchedSnappyDecompressAsync(compressedPointers, sizes, outputs, actualSizes, chunks, temp, tempBytes, outputPointers,
                    nvcomp.nvcompBatchedSnappyDecompressDefaultOpts(), status, stream);
            case ZSTD -> nvcomp.nvcompBatchedZstdDecompressAsync(compressedPointers, sizes, outputs, actualSizes, chunks, temp, tempBytes, outputPointers,
                    nvcomp.nvcompBatchedZstdDecompressDefaultOpts(), status, stream);
            case LZ4_RAW -> nvcomp.nvcompBatchedLZ4DecompressAsync(compressedPointers, sizes, outputs, actualSizes, chunks, temp, tempBytes, outputPointers,
                    nvcomp.nvcompBatchedLZ4DecompressDefaultOpts(), status, stream);
            case GZIP -> nvcomp.nvcompBatchedGzipDecompressAsync(compressedPointers, sizes, outputs, actualSizes, chunks, temp, tempBytes, outputPointers,
                    nvcomp.nvcompBatchedGzipDecompressDefaultOpts(), status, stream);
            case DEFLATE -> nvcomp.nvcompBatchedDeflateDecompressAsync(compressedPointers, sizes, outputs, actualSizes, chunks, temp, tempBytes, outputPointers,
                    nvcomp.nvcompBatchedDeflateDecompressDefaultOpts(), status, stream);
        };
    }

    private static Pointer at(long address)
    {
        return new DeviceAddress(address);
    }

    private static long allocate(long bytes)
    {
        long[] address = new long[1];
        check(cudart.cuMemAlloc(address, bytes), "cuMemAlloc(" + bytes + ") for nvCOMP");
        return address[0];
    }

    private static void upload(long[] values, long target)
    {
        try (LongPointer host = new LongPointer(values)) {
            check(cudart.cuMemcpyHtoD(target, host, 8L * values.length), "cuMemcpyHtoD of nvCOMP chunk array");
        }
    }

    private static long[] download(long source, int count)
    {
        try (LongPointer host = new LongPointer(count)) {
            check(cudart.cuMemcpyDtoH(host, source, 8L * count), "cuMemcpyDtoH of nvCOMP sizes");
            long[] values = new long[count];
            host.get(values);
            return values;
        }
    }

    private static int[] downloadInts(long source, int count)
    {
        try (IntPointer host = new IntPointer(count)) {
            check(cudart.cuMemcpyDtoH(host, source, 4L * count), "cuMemcpyDtoH of nvCOMP statuses");
            int[] values = new int[count];
            host.get(values);
            return values;
        }
    }

    private static void check(int result, String operation)
    {
        if (result != cudart.CUDA_SUCCESS) {
            throw new FerryException(ErrorCategory.EXTERNAL, operation + " failed: CUresult " + result);
        }
    }

    /** A JavaCPP pointer at a device address, position 0. */
    private static final class DeviceAddress
            extends Pointer
    {
        DeviceAddress(long address)
        {
            this.address = address;
        }
    }
}
