// Parquet's RLE/bit-packed hybrid (definition levels, dictionary indices) decoded on the device.
//
// Compiled at run time by NVRTC (dev.ferry.device.kernel.KernelCompiler) and in CI by nvcc
// (TestKernelSourcesCompile), so it includes no headers. Written for correctness first.
// Never yet run on a GPU; the Java emulation with the same index math is
// dev.ferry.gds.decode.cuda.KernelEmulation, checked against the CPU decoder.
//
// Two steps, because a run's position in the output is only known after every earlier run header
// has been read: ferry_rle_runs (one thread) walks the run headers into a run table, then
// ferry_rle_expand (one thread per value) finds its run by binary search and extracts its value.
//
// Bad bytes never become a wrong value: every kernel ORs a flag into *errors and writes 0 where the
// input is bad, and the host reads *errors after the kernels and refuses the page, naming it
// (dev.ferry.device.kernel.KernelErrorFlags holds the same bits).
#define FERRY_ERROR_OVERRUN 1u
#define FERRY_ERROR_VALUE_RANGE 2u
#define FERRY_ERROR_RUN_TABLE 4u
#define FERRY_ERROR_SHORT 8u

// Walks the hybrid's run headers in data[0, byteCount) until valueCount values are covered.
// Run r covers values [runStarts[r], runStarts[r] + runLengths[r]); runKinds[r] is 0 for an RLE
// run, 1 for a bit-packed run; runOffsets[r] is where its payload starts in data. At most maxRuns
// runs are recorded (the host passes valueCount: every recorded run covers at least one value);
// runs of zero values are stepped over. *runCount gets the number recorded. Launch 1 x 1.
//
// A bit-packed run's payload must hold the bits of the values actually used: a last group cut
// short after the page's last value is accepted, as parquet-mr accepts it; anything shorter is
// FERRY_ERROR_OVERRUN. Fewer values than valueCount is FERRY_ERROR_SHORT.
extern "C" __global__ void ferry_rle_runs(
        const unsigned char* data,
        long long byteCount,
        int bitWidth,
        int valueCount,
        int maxRuns,
        int* runStarts,
        int* runLengths,
        int* runKinds,
        long long* runOffsets,
        int* runCount,
        unsigned int* errors)
{
    if (blockIdx.x != 0 || threadIdx.x != 0) {
        return;
    }
    long long position = 0;
    int value = 0;
    int runs = 0;
    long long rleBytes = (bitWidth + 7) / 8;
    while (value < valueCount) {
        // ULEB128 header, at most 5 bytes for a 32-bit value.
        unsigned long long header = 0;
        int shift = 0;
        bool done = false;
        while (!done) {
            if (position >= byteCount || shift > 28) {
                atomicOr(errors, FERRY_ERROR_OVERRUN);
                *runCount = runs;
                return;
            }
            unsigned int next = data[position++];
            header |= (unsigned long long) (next & 0x7Fu) << shift;
            shift += 7;
            done = (next & 0x80u) == 0;
        }
        long long count;
        long long payload;
        int kind;
        if ((header & 1ull) != 0) {
            count = (long long) (header >> 1) * 8;
            kind = 1;
            long long used = count < (long long) (valueCount - value) ? count : (long long) (valueCount - value);
            long long needed = (used * bitWidth + 7) / 8;
            if (position + needed > byteCount) {
                atomicOr(errors, FERRY_ERROR_OVERRUN);
                *runCount = runs;
                return;
            }
            payload = (long long) (header >> 1) * bitWidth;
        }
        else {
            count = (long long) (header >> 1);
            kind = 0;
            payload = rleBytes;
            if (position + payload > byteCount) {
                atomicOr(errors, FERRY_ERROR_OVERRUN);
                *runCount = runs;
                return;
            }
        }
        if (count > 0) {
            if (runs >= maxRuns) {
                atomicOr(errors, FERRY_ERROR_RUN_TABLE);
                *runCount = runs;
                return;
            }
            long long left = (long long) (valueCount - value);
            int length = (int) (count < left ? count : left);
            runStarts[runs] = value;
            runLengths[runs] = length;
            runKinds[runs] = kind;
            runOffsets[runs] = position;
            runs++;
            value += length;
        }
        position += payload;
    }
    *runCount = runs;
}

// Reads the little-endian bits [bitOffset, bitOffset + bitWidth) of data; bytes at or past
// byteCount flag FERRY_ERROR_OVERRUN and read as 0.
__device__ unsigned int ferry_read_bits(const unsigned char* data, long long byteCount, long long bitOffset, int bitWidth, unsigned int* errors)
{
    if (bitWidth == 0) {
        return 0u;
    }
    long long first = bitOffset >> 3;
    int shift = (int) (bitOffset & 7);
    int bytes = (shift + bitWidth + 7) / 8;
    unsigned long long bits = 0;
    for (int i = 0; i < bytes; i++) {
        if (first + i >= byteCount) {
            atomicOr(errors, FERRY_ERROR_OVERRUN);
            return 0u;
        }
        bits |= (unsigned long long) data[first + i] << (8 * i);
    }
    unsigned long long mask = bitWidth == 32 ? 0xFFFFFFFFull : ((1ull << bitWidth) - 1);
    return (unsigned int) ((bits >> shift) & mask);
}

// One thread per value: out[i] is value i of the runs ferry_rle_runs recorded. A value above
// maxValue (the column's maximum definition level, or the dictionary's size - 1; -1 when nothing
// is allowed, as for an empty dictionary) flags FERRY_ERROR_VALUE_RANGE and is written 0, so a
// dictionary gather never reads outside the dictionary. Launch ceil(valueCount / block) x block.
extern "C" __global__ void ferry_rle_expand(
        const unsigned char* data,
        long long byteCount,
        int bitWidth,
        const int* runStarts,
        const int* runLengths,
        const int* runKinds,
        const long long* runOffsets,
        const int* runCount,
        int valueCount,
        long long maxValue,
        unsigned int* out,
        unsigned int* errors)
{
    long long index = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= valueCount) {
        return;
    }
    int runs = *runCount;
    if (runs <= 0) {
        // ferry_rle_runs already flagged why; nothing here is a value.
        out[index] = 0u;
        return;
    }
    int low = 0;
    int high = runs - 1;
    while (low < high) {
        int middle = low + (high - low + 1) / 2;
        if (runStarts[middle] <= index) {
            low = middle;
        }
        else {
            high = middle - 1;
        }
    }
    long long within = index - runStarts[low];
    if (within < 0 || within >= runLengths[low]) {
        // Past the last recorded run: the runs ended early (flagged by ferry_rle_runs).
        atomicOr(errors, FERRY_ERROR_SHORT);
        out[index] = 0u;
        return;
    }
    unsigned int value;
    if (runKinds[low] == 0) {
        // An RLE run's value fills whole bytes (bitWidth <= 32, checked by the host); bits above bitWidth
        // are not masked off but caught by the maxValue check below, as parquet-mr reads them.
        value = ferry_read_bits(data, byteCount, runOffsets[low] * 8, (bitWidth + 7) / 8 * 8, errors);
    }
    else {
        value = ferry_read_bits(data, byteCount, runOffsets[low] * 8 + within * bitWidth, bitWidth, errors);
    }
    if ((long long) value > maxValue) {
        atomicOr(errors, FERRY_ERROR_VALUE_RANGE);
        value = 0u;
    }
    out[index] = value;
}

// One thread per output byte: the Arrow validity bitmap of expanded definition levels (bit i set
// when levels[i] == maxDefinition), LSB first, bits at or after valueCount written 0.
extern "C" __global__ void ferry_levels_bitmap(
        const unsigned int* levels,
        int valueCount,
        unsigned int maxDefinition,
        unsigned char* bitmap)
{
    long long byteIndex = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    long long byteCount = ((long long) valueCount + 7) / 8;
    if (byteIndex >= byteCount) {
        return;
    }
    unsigned int bits = 0;
    for (int bit = 0; bit < 8; bit++) {
        long long value = byteIndex * 8 + bit;
        if (value < valueCount && levels[value] == maxDefinition) {
            bits |= 1u << bit;
        }
    }
    bitmap[byteIndex] = (unsigned char) bits;
}
