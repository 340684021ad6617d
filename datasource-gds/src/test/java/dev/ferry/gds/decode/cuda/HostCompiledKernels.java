package dev.ferry.gds.decode.cuda;

import java.util.Optional;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.gds.device.DeviceTarget;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;

/**
 * The decode kernels' own CUDA C sources, built for the host into a {@link HostKernelServer}, which
 * runs a kernel by name once per (block, thread) of the grid the CUDA implementation launches. The device
 * decoder runs on it exactly as on {@link CudaDecodeKernels}, so its output checks the .cu sources
 * themselves against the CPU decoder. It cannot see races or GPU-only faults.
 */
public final class HostCompiledKernels
        implements DeviceBufferKernels, AutoCloseable
{
    private static final int BLOCK = 256;
    private static final List<String> SOURCES = List.of("parquet_rle.cu", "parquet_scan.cu", "parquet_gather.cu", "parquet_plain.cu", "parquet_headers.cu", "parquet_copy.cu");
    private static final String NAME = "host_kernels";
    private static final String DISPATCH = """
            if (kernel == "ferry_rle_runs") GRID(ferry_rle_runs(A(0, const unsigned char*), k[1], (int) k[2], (int) k[3], (int) k[4], A(5, int*), A(6, int*), A(7, int*), A(8, long long*), A(9, int*), A(10, unsigned int*)))
            else if (kernel == "ferry_rle_expand") GRID(ferry_rle_expand(A(0, const unsigned char*), k[1], (int) k[2], A(3, const int*), A(4, const int*), A(5, const int*), A(6, const long long*), A(7, const int*), (int) k[8], k[9], A(10, unsigned int*), A(11, unsigned int*)))
            else if (kernel == "ferry_levels_bitmap") GRID(ferry_levels_bitmap(A(0, const unsigned int*), (int) k[1], (unsigned int) k[2], A(3, unsigned char*)))
            else if (kernel == "ferry_scan_chunk_sums") GRID(ferry_scan_chunk_sums(A(0, const unsigned int*), (int) k[1], (int) k[2], (int) k[3], (unsigned int) k[4], A(5, unsigned long long*)))
            else if (kernel == "ferry_scan_chunk_starts") GRID(ferry_scan_chunk_starts(A(0, unsigned long long*), (int) k[1]))
            else if (kernel == "ferry_scan_write") GRID(ferry_scan_write(A(0, const unsigned int*), (int) k[1], (int) k[2], (int) k[3], (unsigned int) k[4], A(5, const unsigned long long*), A(6, int*), A(7, unsigned int*)))
            else if (kernel == "ferry_dict_gather_fixed") GRID(ferry_dict_gather_fixed(A(0, const unsigned char*), (int) k[1], (int) k[2], A(3, const unsigned int*), A(4, const unsigned char*), A(5, const int*), (int) k[6], A(7, unsigned char*), A(8, unsigned int*)))
            else if (kernel == "ferry_spaced_fixed") GRID(ferry_spaced_fixed(A(0, const unsigned char*), k[1], (int) k[2], A(3, const unsigned char*), A(4, const int*), (int) k[5], A(6, unsigned char*), A(7, unsigned int*)))
            else if (kernel == "ferry_spaced_booleans") GRID(ferry_spaced_booleans(A(0, const unsigned char*), k[1], k[2], A(3, const unsigned char*), A(4, const int*), (int) k[5], A(6, unsigned char*), A(7, unsigned int*)))
            else if (kernel == "ferry_copy_bits") GRID(ferry_copy_bits(A(0, const unsigned char*), k[1], A(2, unsigned char*), k[3]))
            else if (kernel == "ferry_string_lengths") GRID(ferry_string_lengths((int) k[0], A(1, const unsigned int*), (int) k[2], A(3, const unsigned int*), A(4, const unsigned char*), A(5, const int*), (int) k[6], A(7, unsigned int*), A(8, unsigned int*)))
            else if (kernel == "ferry_string_gather") GRID(ferry_string_gather((int) k[0], A(1, const unsigned char*), A(2, const long long*), A(3, const unsigned int*), (int) k[4], A(5, const unsigned int*), A(6, const unsigned char*), A(7, const int*), (int) k[8], A(9, const int*), A(10, unsigned char*)))
            else if (kernel == "ferry_plain_byte_array_index") GRID(ferry_plain_byte_array_index(A(0, const unsigned char*), k[1], (int) k[2], k[3], A(4, long long*), A(5, unsigned int*), A(6, unsigned int*)))
            else if (kernel == "ferry_int96_to_micros") GRID(ferry_int96_to_micros(A(0, const unsigned char*), (int) k[1], A(2, long long*)))
            else if (kernel == "ferry_decimal_to_128") GRID(ferry_decimal_to_128(A(0, const unsigned char*), (int) k[1], (int) k[2], (int) k[3], A(4, unsigned char*), A(5, unsigned int*)))
            else if (kernel == "ferry_page_headers") GRID(ferry_page_headers(A(0, const long long*), (int) k[1], A(2, long long*), A(3, long long*)))
            else if (kernel == "ferry_int32_narrow") GRID(ferry_int32_narrow(A(0, const int*), (int) k[1], (int) k[2], A(3, unsigned char*)))
            else if (kernel == "ferry_copy_ranges") GRID(ferry_copy_ranges(A(0, const long long*), (int) k[1]))
            else if (kernel == "ferry_timestamp_to_micros") GRID(ferry_timestamp_to_micros(A(0, const long long*), (int) k[1], (int) k[2], (int) k[3], A(4, long long*), A(5, unsigned int*)))
            """;

    private final DeviceTarget target;
    private final HostKernelServer server;

    /** Builds the server once; empty when no {@code c++} is on PATH. */
    public static java.util.Optional<Path> build(Path directory)
            throws IOException, InterruptedException, URISyntaxException
    {
        return HostKernelServer.build(directory, NAME, SOURCES, DISPATCH);
    }

    public HostCompiledKernels(DeviceTarget target)
    {
        this.target = target;
        this.server = new HostKernelServer(NAME);
    }

    @Override
    public long allocate(long bytes)
    {
        return server.allocate(bytes);
    }

    @Override
    public void free(long address)
    {
        server.free(address);
    }

    /** Bytes still allocated in the server (a leak check). */
    public long allocatedBytes()
    {
        return server.allocatedBytes();
    }

    @Override
    public void upload(byte[] source, int offset, int length, long target)
    {
        server.upload(source, offset, length, target);
    }

    @Override
    public void download(long source, byte[] target, int offset, int length)
    {
        server.download(source, target, offset, length);
    }

    @Override
    public void copy(long source, long target, long length)
    {
        server.copy(source, target, length);
    }

    @Override
    public void copyRanges(long ranges, int count)
    {
        if (count <= 0) {
            return;
        }
        launchGrid("ferry_copy_ranges", count, BLOCK, ranges, count);
    }

    @Override
    public Optional<String> cannotDecompress(CompressionCodecName codec)
    {
        return HostPageDecompression.cannotDecompress(codec);
    }

    /** nvCOMP's part, done by the CPU from the kernels' memory into it. */
    @Override
    public String[] decompress(CompressionCodecName codec, long[] in, long[] inBytes, long[] out, long[] outBytes)
    {
        return HostPageDecompression.decompress(this, codec, in, inBytes, out, outBytes);
    }

    @Override
    public String describe()
    {
        return "the kernels' CUDA C sources compiled for the host";
    }

    @Override
    public DeviceBuffer handOver(long address)
    {
        return KernelMemoryCopies.handOver(this, target, address, server.sizeOf(address));
    }

    /** A resident chunk copied into the server's memory (a GPU reads it in place). */
    @Override
    public long borrow(DeviceBuffer buffer, long offset, long length)
    {
        return KernelMemoryCopies.borrow(this, target, buffer, offset, length);
    }

    @Override
    public void giveBack(long address)
    {
        free(address);
    }

    private void launch(String kernel, long items, Object... arguments)
    {
        if (items <= 0) {
            return;
        }
        launchGrid(kernel, (items + BLOCK - 1) / BLOCK, BLOCK, arguments);
    }

    private void launchGrid(String kernel, long grid, int block, Object... arguments)
    {
        server.launchGrid(kernel, grid, block, arguments);
    }

    @Override
    public void rleRuns(long data, long byteCount, int bitWidth, int valueCount, int maxRuns, long runStarts, long runLengths, long runKinds, long runOffsets,
            long runCount, long errors)
    {
        launchGrid("ferry_rle_runs", 1, 1, data, byteCount, bitWidth, valueCount, maxRuns, runStarts, runLengths, runKinds, runOffsets, runCount, errors);
    }

    @Override
    public void rleExpand(long data, long byteCount, int bitWidth, long runStarts, long runLengths, long runKinds, long runOffsets, long runCount, int valueCount,
            long maxValue, long out, long errors)
    {
        launch("ferry_rle_expand", valueCount, data, byteCount, bitWidth, runStarts, runLengths, runKinds, runOffsets, runCount, valueCount, maxValue, out, errors);
    }

    @Override
    public void levelsBitmap(long levels, int valueCount, int maxDefinition, long bitmap)
    {
        launch("ferry_levels_bitmap", ((long) valueCount + 7) / 8, levels, valueCount, maxDefinition, bitmap);
    }

    @Override
    public void scanChunkSums(long values, int valueCount, int chunk, int flagsOnly, int match, long sums)
    {
        launch("ferry_scan_chunk_sums", ((long) valueCount + chunk - 1) / chunk, values, valueCount, chunk, flagsOnly, match, sums);
    }

    @Override
    public void scanChunkStarts(long sums, int chunkCount)
    {
        launchGrid("ferry_scan_chunk_starts", 1, 1, sums, chunkCount);
    }

    @Override
    public void scanWrite(long values, int valueCount, int chunk, int flagsOnly, int match, long starts, long out, long errors)
    {
        launch("ferry_scan_write", ((long) valueCount + chunk - 1) / chunk, values, valueCount, chunk, flagsOnly, match, starts, out, errors);
    }

    @Override
    public void dictGatherFixed(long dictionary, int dictionarySize, int width, long indices, long bitmap, long positions, int valueCount, long out, long errors)
    {
        launch("ferry_dict_gather_fixed", valueCount, dictionary, dictionarySize, width, indices, bitmap, positions, valueCount, out, errors);
    }

    @Override
    public void spacedFixed(long dense, long denseCount, int width, long bitmap, long positions, int valueCount, long out, long errors)
    {
        launch("ferry_spaced_fixed", valueCount, dense, denseCount, width, bitmap, positions, valueCount, out, errors);
    }

    @Override
    public void spacedBooleans(long dense, long denseCount, long slotBase, long bitmap, long positions, int valueCount, long out, long errors)
    {
        launch("ferry_spaced_booleans", ((long) valueCount + 7) / 8, dense, denseCount, slotBase, bitmap, positions, valueCount, out, errors);
    }

    @Override
    public void copyBits(long source, long bitCount, long target, long targetBitOffset)
    {
        if (bitCount <= 0) {
            return;
        }
        launch("ferry_copy_bits", ((targetBitOffset + bitCount - 1) >> 3) - (targetBitOffset >> 3) + 1, source, bitCount, target, targetBitOffset);
    }

    @Override
    public void stringLengths(int dictionary, long entryLengths, int entryCount, long indices, long bitmap, long positions, int valueCount, long lengths, long errors)
    {
        launch("ferry_string_lengths", valueCount, dictionary, entryLengths, entryCount, indices, bitmap, positions, valueCount, lengths, errors);
    }

    @Override
    public void stringGather(int dictionary, long entryBytes, long entryStarts, long entryLengths, int entryCount, long indices, long bitmap, long positions,
            int valueCount, long offsets, long data)
    {
        launch("ferry_string_gather", valueCount, dictionary, entryBytes, entryStarts, entryLengths, entryCount, indices, bitmap, positions, valueCount, offsets, data);
    }

    @Override
    public void plainByteArrayIndex(long data, long byteCount, int entryCount, long startBase, long entryStarts, long entryLengths, long errors)
    {
        launchGrid("ferry_plain_byte_array_index", 1, 1, data, byteCount, entryCount, startBase, entryStarts, entryLengths, errors);
    }

    @Override
    public void int96ToMicros(long in, int count, long out)
    {
        launch("ferry_int96_to_micros", count, in, count, out);
    }

    @Override
    public void decimalTo128(long in, int count, int inWidth, int bigEndian, long out, long errors)
    {
        launch("ferry_decimal_to_128", count, in, count, inWidth, bigEndian, out, errors);
    }

    @Override
    public void int32Narrow(long in, int count, int outWidth, long out)
    {
        launch("ferry_int32_narrow", count, in, count, outWidth, out);
    }

    @Override
    public void timestampToMicros(long in, int count, int multiply, int divide, long out, long errors)
    {
        launch("ferry_timestamp_to_micros", count, in, count, multiply, divide, out, errors);
    }

    @Override
    public void pageHeaders(long chunks, int chunkCount, long descriptors, long status)
    {
        launch("ferry_page_headers", chunkCount, chunks, chunkCount, descriptors, status);
    }

    @Override
    public void close()
    {
        server.close();
    }
}
