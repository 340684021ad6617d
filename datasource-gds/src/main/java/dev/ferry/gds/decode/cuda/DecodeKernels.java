package dev.ferry.gds.decode.cuda;

import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import java.util.Optional;

/**
 * The device decoder's kernels and the memory they run on, as one interface with two
 * implementations: {@link CudaDecodeKernels} launches the CUDA C kernels of the device jar
 * ({@code parquet_rle.cu}, {@code parquet_scan.cu}, {@code parquet_gather.cu},
 * {@code parquet_plain.cu}, {@code parquet_headers.cu}, {@code parquet_copy.cu}) on device addresses, and {@link KernelEmulation} runs the same index
 * math in Java on emulated addresses, so {@link DeviceChunkDecode}, the host side that sizes
 * buffers and chains kernels, is tested against the CPU decoder on a machine without a GPU.
 *
 * <p>Addresses are 64-bit and support arithmetic ({@code base + offset}); 0 is the null pointer
 * (an absent bitmap or positions array). Each kernel method's parameters are the kernel's, in order;
 * the Javadoc of each kernel is in its {@code .cu} source. Every method returns after the kernel
 * finished (launch errors and faults checked).
 */
public interface DecodeKernels
{
    /** Device memory of {@code bytes} bytes (not zeroed); freed with {@link #free}. */
    long allocate(long bytes);

    void free(long address);

    void upload(byte[] source, int offset, int length, long target);

    void download(long source, byte[] target, int offset, int length);

    void copy(long source, long target, long length);

    /**
     * {@code parquet_copy.cu}: {@code count} byte ranges, each a triple of longs (source address, target address,
     * length) in the table at {@code ranges} in this memory, copied in one launch ({@link DeviceRangeCopy} builds
     * the table); a range's target overlaps no source and no other target.
     */
    void copyRanges(long ranges, int count);

    /** Why pages of {@code codec} cannot be decompressed here (the chunk then falls back to the CPU, counted); empty: they can. */
    Optional<String> cannotDecompress(CompressionCodecName codec);

    /**
     * Decompresses page body i from {@code in[i]} ({@code inBytes[i]} bytes) into {@code out[i]}
     * ({@code outBytes[i]} bytes expected), all in one batch (nvCOMP's batched API on a GPU), and
     * returns per body null, or why it did not decompress to its expected size.
     */
    String[] decompress(CompressionCodecName codec, long[] in, long[] inBytes, long[] out, long[] outBytes);

    /** Where this implementation runs, for the explain string and error messages. */
    String describe();

    void rleRuns(long data, long byteCount, int bitWidth, int valueCount, int maxRuns, long runStarts, long runLengths, long runKinds, long runOffsets,
            long runCount, long errors);

    void rleExpand(long data, long byteCount, int bitWidth, long runStarts, long runLengths, long runKinds, long runOffsets, long runCount, int valueCount,
            long maxValue, long out, long errors);

    void levelsBitmap(long levels, int valueCount, int maxDefinition, long bitmap);

    void scanChunkSums(long values, int valueCount, int chunk, int flagsOnly, int match, long sums);

    void scanChunkStarts(long sums, int chunkCount);

    void scanWrite(long values, int valueCount, int chunk, int flagsOnly, int match, long starts, long out, long errors);

    void dictGatherFixed(long dictionary, int dictionarySize, int width, long indices, long bitmap, long positions, int valueCount, long out, long errors);

    void spacedFixed(long dense, long denseCount, int width, long bitmap, long positions, int valueCount, long out, long errors);

    void spacedBooleans(long dense, long denseCount, long slotBase, long bitmap, long positions, int valueCount, long out, long errors);

    void copyBits(long source, long bitCount, long target, long targetBitOffset);

    void stringLengths(int dictionary, long entryLengths, int entryCount, long indices, long bitmap, long positions, int valueCount, long lengths, long errors);

    void stringGather(int dictionary, long entryBytes, long entryStarts, long entryLengths, int entryCount, long indices, long bitmap, long positions,
            int valueCount, long offsets, long data);

    void plainByteArrayIndex(long data, long byteCount, int entryCount, long startBase, long entryStarts, long entryLengths, long errors);

    void int96ToMicros(long in, int count, long out);

    void decimalTo128(long in, int count, int inWidth, int bigEndian, long out, long errors);

    /** INT32 values to their low {@code outWidth} bytes (1: ByteType, 2: ShortType), as Java's narrowing casts. */
    void int32Narrow(long in, int count, int outWidth, long out);

    /** INT64 MILLIS (multiply 1000) or NANOS (divide 1000) to microseconds; the decoder uses MILLIS (Spark reads no NANOS timestamps as timestamps). */
    void timestampToMicros(long in, int count, int multiply, int divide, long out, long errors);

    /** {@code parquet_headers.cu}: one thread per chunk walks its page headers into descriptor slots ({@link PageHeaderSlots}'s layout). */
    void pageHeaders(long chunks, int chunkCount, long descriptors, long status);
}
