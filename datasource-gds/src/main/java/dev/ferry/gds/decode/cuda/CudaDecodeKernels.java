package dev.ferry.gds.decode.cuda;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.device.cuda.DevicePointers;
import dev.ferry.device.kernel.KernelLauncher;
import dev.ferry.device.kernel.KernelSource;
import dev.ferry.device.kernel.LoadedKernel;
import dev.ferry.device.memory.BufferAllocator;
import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.device.nvcomp.NvcompBatchDecompressor;
import dev.ferry.device.nvcomp.NvcompCodec;
import dev.ferry.device.nvcomp.NvcompProbe;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.javacpp.BytePointer;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The decode kernels on one GPU, the device of the allocator's memory (any CUDA ordinal): each method
 * launches its CUDA C kernel (compiled once per process and architecture by NVRTC, module loaded once
 * per device into that device's primary context and cached by {@link KernelLauncher}) with the driver
 * API on that device and waits for it, checking the launch and the synchronization. Memory comes
 * from the executor's device allocator (so the runtime's limit and books apply) and is tracked here
 * by address until freed or handed over as an Arrow buffer ({@link #handOver}). Reached only through
 * {@link DeviceKernelsLoader#load} after the kernel probe said available. Never yet run on a GPU.
 */
final class CudaDecodeKernels
        implements DeviceBufferKernels
{
    private static final int BLOCK = 256;

    private final KernelLauncher launcher;
    private final int device;
    private final BufferAllocator allocator;
    private final Map<Long, DeviceBuffer> buffers = new HashMap<>();
    private final LoadedKernel rleRuns;
    private final LoadedKernel rleExpand;
    private final LoadedKernel levelsBitmap;
    private final LoadedKernel scanChunkSums;
    private final LoadedKernel scanChunkStarts;
    private final LoadedKernel scanWrite;
    private final LoadedKernel dictGatherFixed;
    private final LoadedKernel spacedFixed;
    private final LoadedKernel spacedBooleans;
    private final LoadedKernel copyBits;
    private final LoadedKernel stringLengths;
    private final LoadedKernel stringGather;
    private final LoadedKernel plainByteArrayIndex;
    private final LoadedKernel int96ToMicros;
    private final LoadedKernel decimalTo128;
    private final LoadedKernel timestampToMicros;
    private final LoadedKernel int32Narrow;
    // Loaded on first use, so an NVRTC rejection of parquet_headers.cu fails the header walk only, never the decoder's kernels.
    private LoadedKernel pageHeaders;
    // Likewise parquet_copy.cu: a rejection fails the resident path's copies only.
    private LoadedKernel copyRanges;

    // Public for the reflective construction in DeviceKernelsLoader.
    public CudaDecodeKernels(BufferAllocator allocator)
    {
        this.allocator = requireNonNull(allocator, "allocator is null");
        if (!allocator.location().isDevice()) {
            throw new FerryException(ErrorCategory.INTERNAL_ERROR, "the device decoder needs a device allocator, got " + allocator.name() + " at " + allocator.location());
        }
        this.device = allocator.location().device();
        this.launcher = KernelLauncher.shared();
        KernelSource rle = KernelSource.load("parquet_rle.cu");
        KernelSource scan = KernelSource.load("parquet_scan.cu");
        KernelSource gather = KernelSource.load("parquet_gather.cu");
        KernelSource plain = KernelSource.load("parquet_plain.cu");
        rleRuns = launcher.load(device, rle, "ferry_rle_runs");
        rleExpand = launcher.load(device, rle, "ferry_rle_expand");
        levelsBitmap = launcher.load(device, rle, "ferry_levels_bitmap");
        scanChunkSums = launcher.load(device, scan, "ferry_scan_chunk_sums");
        scanChunkStarts = launcher.load(device, scan, "ferry_scan_chunk_starts");
        scanWrite = launcher.load(device, scan, "ferry_scan_write");
        dictGatherFixed = launcher.load(device, gather, "ferry_dict_gather_fixed");
        spacedFixed = launcher.load(device, gather, "ferry_spaced_fixed");
        spacedBooleans = launcher.load(device, gather, "ferry_spaced_booleans");
        copyBits = launcher.load(device, gather, "ferry_copy_bits");
        stringLengths = launcher.load(device, gather, "ferry_string_lengths");
        stringGather = launcher.load(device, gather, "ferry_string_gather");
        plainByteArrayIndex = launcher.load(device, plain, "ferry_plain_byte_array_index");
        int96ToMicros = launcher.load(device, plain, "ferry_int96_to_micros");
        decimalTo128 = launcher.load(device, plain, "ferry_decimal_to_128");
        timestampToMicros = launcher.load(device, plain, "ferry_timestamp_to_micros");
        int32Narrow = launcher.load(device, plain, "ferry_int32_narrow");
    }

    @Override
    public DeviceBuffer handOver(long address)
    {
        DeviceBuffer buffer = buffers.remove(address);
        if (buffer == null) {
            throw new FerryException(ErrorCategory.INTERNAL_ERROR, "no device decode buffer at 0x" + Long.toHexString(address));
        }
        return buffer;
    }

    @Override
    public long borrow(DeviceBuffer buffer, long offset, long length)
    {
        if (!buffer.location().equals(allocator.location())) {
            throw new FerryException(ErrorCategory.INTERNAL_ERROR, buffer.name() + " is at " + buffer.location() + ", these kernels run at " + allocator.location());
        }
        buffer.checkRange("borrow for the decode kernels", offset, length);
        // The device pointer itself: the kernels read the chunk where the read put it, nothing is copied.
        return DevicePointers.address(buffer) + offset;
    }

    @Override
    public void giveBack(long address)
    {
        // Nothing to release: a borrowed pointer was never tracked as these kernels' allocation.
    }

    @Override
    public long allocate(long bytes)
    {
        DeviceBuffer buffer = allocator.allocate(Math.max(8, (bytes + 7) & ~7L));
        long address = DevicePointers.address(buffer);
        buffers.put(address, buffer);
        return address;
    }

    @Override
    public void free(long address)
    {
        DeviceBuffer buffer = buffers.remove(address);
        if (buffer != null) {
            buffer.close();
        }
    }

    @Override
    public void upload(byte[] source, int offset, int length, long target)
    {
        if (length == 0) {
            return;
        }
        launcher.makeCurrent(device);
        try (BytePointer host = new BytePointer(length)) {
            host.put(source, offset, length);
            check(cudart.cuMemcpyHtoD(target, host, length), "cuMemcpyHtoD(" + length + ")");
        }
    }

    @Override
    public void download(long source, byte[] target, int offset, int length)
    {
        if (length == 0) {
            return;
        }
        launcher.makeCurrent(device);
        try (BytePointer host = new BytePointer(length)) {
            check(cudart.cuMemcpyDtoH(host, source, length), "cuMemcpyDtoH(" + length + ")");
            host.get(target, offset, length);
        }
    }

    @Override
    public void copy(long source, long target, long length)
    {
        if (length == 0) {
            return;
        }
        launcher.makeCurrent(device);
        check(cudart.cuMemcpyDtoD(target, source, length), "cuMemcpyDtoD(" + length + ")");
    }

    /** One block per range (the kernel strides its threads over the range's bytes). */
    @Override
    public void copyRanges(long ranges, int count)
    {
        if (count <= 0) {
            return;
        }
        copyRangesKernel().launchAndWait(count, BLOCK, ranges, count);
    }

    private synchronized LoadedKernel copyRangesKernel()
    {
        if (copyRanges == null) {
            copyRanges = launcher.load(device, KernelSource.load("parquet_copy.cu"), "ferry_copy_ranges");
        }
        return copyRanges;
    }

    @Override
    public Optional<String> cannotDecompress(CompressionCodecName codec)
    {
        if (NvcompCodec.forParquet(codec.name()).isEmpty()) {
            return Optional.of("codec " + codec + " has no nvCOMP decompressor");
        }
        if (!NvcompProbe.availability().available()) {
            return Optional.of("nvCOMP unavailable: " + NvcompProbe.availability().reason());
        }
        return Optional.empty();
    }

    /** One nvCOMP batched call for the chunk's compressed bodies, on this device (never yet run on a GPU). */
    @Override
    public String[] decompress(CompressionCodecName codec, long[] in, long[] inBytes, long[] out, long[] outBytes)
    {
        NvcompCodec nvcomp = NvcompCodec.forParquet(codec.name())
                .orElseThrow(() -> new FerryException(ErrorCategory.INTERNAL_ERROR, "codec " + codec + " has no nvCOMP decompressor"));
        launcher.makeCurrent(device);
        return NvcompBatchDecompressor.decompress(nvcomp, in, inBytes, out, outBytes).failures();
    }

    @Override
    public String describe()
    {
        return "CUDA kernels on device " + device + " (" + launcher.architecture(device) + ")";
    }

    private void launch(LoadedKernel kernel, long items, Object... arguments)
    {
        if (items <= 0) {
            return;
        }
        long grid = (items + BLOCK - 1) / BLOCK;
        if (grid > Integer.MAX_VALUE) {
            throw new FerryException(ErrorCategory.INTERNAL_ERROR, "kernel " + kernel.name() + ": " + items + " items need more than 2^31 blocks");
        }
        kernel.launchAndWait((int) grid, BLOCK, arguments);
    }

    private void launchSingle(LoadedKernel kernel, Object... arguments)
    {
        kernel.launchAndWait(1, 1, arguments);
    }

    @Override
    public void rleRuns(long data, long byteCount, int bitWidth, int valueCount, int maxRuns, long runStarts, long runLengths, long runKinds, long runOffsets,
            long runCount, long errors)
    {
        launchSingle(rleRuns, data, byteCount, bitWidth, valueCount, maxRuns, runStarts, runLengths, runKinds, runOffsets, runCount, errors);
    }

    @Override
    public void rleExpand(long data, long byteCount, int bitWidth, long runStarts, long runLengths, long runKinds, long runOffsets, long runCount, int valueCount,
            long maxValue, long out, long errors)
    {
        launch(rleExpand, valueCount, data, byteCount, bitWidth, runStarts, runLengths, runKinds, runOffsets, runCount, valueCount, maxValue, out, errors);
    }

    @Override
    public void levelsBitmap(long levels, int valueCount, int maxDefinition, long bitmap)
    {
        launch(levelsBitmap, ((long) valueCount + 7) / 8, levels, valueCount, maxDefinition, bitmap);
    }

    @Override
    public void scanChunkSums(long values, int valueCount, int chunk, int flagsOnly, int match, long sums)
    {
        launch(scanChunkSums, ((long) valueCount + chunk - 1) / chunk, values, valueCount, chunk, flagsOnly, match, sums);
    }

    @Override
    public void scanChunkStarts(long sums, int chunkCount)
    {
        launchSingle(scanChunkStarts, sums, chunkCount);
    }

    @Override
    public void scanWrite(long values, int valueCount, int chunk, int flagsOnly, int match, long starts, long out, long errors)
    {
        launch(scanWrite, ((long) valueCount + chunk - 1) / chunk, values, valueCount, chunk, flagsOnly, match, starts, out, errors);
    }

    @Override
    public void dictGatherFixed(long dictionary, int dictionarySize, int width, long indices, long bitmap, long positions, int valueCount, long out, long errors)
    {
        launch(dictGatherFixed, valueCount, dictionary, dictionarySize, width, indices, bitmap, positions, valueCount, out, errors);
    }

    @Override
    public void spacedFixed(long dense, long denseCount, int width, long bitmap, long positions, int valueCount, long out, long errors)
    {
        launch(spacedFixed, valueCount, dense, denseCount, width, bitmap, positions, valueCount, out, errors);
    }

    @Override
    public void spacedBooleans(long dense, long denseCount, long slotBase, long bitmap, long positions, int valueCount, long out, long errors)
    {
        launch(spacedBooleans, ((long) valueCount + 7) / 8, dense, denseCount, slotBase, bitmap, positions, valueCount, out, errors);
    }

    @Override
    public void copyBits(long source, long bitCount, long target, long targetBitOffset)
    {
        if (bitCount <= 0) {
            return;
        }
        launch(copyBits, ((targetBitOffset + bitCount - 1) >> 3) - (targetBitOffset >> 3) + 1, source, bitCount, target, targetBitOffset);
    }

    @Override
    public void stringLengths(int dictionary, long entryLengths, int entryCount, long indices, long bitmap, long positions, int valueCount, long lengths, long errors)
    {
        launch(stringLengths, valueCount, dictionary, entryLengths, entryCount, indices, bitmap, positions, valueCount, lengths, errors);
    }

    @Override
    public void stringGather(int dictionary, long entryBytes, long entryStarts, long entryLengths, int entryCount, long indices, long bitmap, long positions,
            int valueCount, long offsets, long data)
    {
        launch(stringGather, valueCount, dictionary, entryBytes, entryStarts, entryLengths, entryCount, indices, bitmap, positions, valueCount, offsets, data);
    }

    @Override
    public void plainByteArrayIndex(long data, long byteCount, int entryCount, long startBase, long entryStarts, long entryLengths, long errors)
    {
        launchSingle(plainByteArrayIndex, data, byteCount, entryCount, startBase, entryStarts, entryLengths, errors);
    }

    @Override
    public void int96ToMicros(long in, int count, long out)
    {
        launch(int96ToMicros, count, in, count, out);
    }

    @Override
    public void decimalTo128(long in, int count, int inWidth, int bigEndian, long out, long errors)
    {
        launch(decimalTo128, count, in, count, inWidth, bigEndian, out, errors);
    }

    @Override
    public void int32Narrow(long in, int count, int outWidth, long out)
    {
        launch(int32Narrow, count, in, count, outWidth, out);
    }

    @Override
    public void timestampToMicros(long in, int count, int multiply, int divide, long out, long errors)
    {
        launch(timestampToMicros, count, in, count, multiply, divide, out, errors);
    }

    @Override
    public void pageHeaders(long chunks, int chunkCount, long descriptors, long status)
    {
        launch(pageHeadersKernel(), chunkCount, chunks, chunkCount, descriptors, status);
    }

    private synchronized LoadedKernel pageHeadersKernel()
    {
        if (pageHeaders == null) {
            pageHeaders = launcher.load(device, KernelSource.load("parquet_headers.cu"), "ferry_page_headers");
        }
        return pageHeaders;
    }

    private static void check(int result, String operation)
    {
        if (result != cudart.CUDA_SUCCESS) {
            throw new FerryException(ErrorCategory.EXTERNAL, operation + " for the device decoder failed: CUresult " + result);
        }
    }
}
