// Parquet definition levels and spaced values for a flat optional column (max definition level 1).
//
// Compiled at run time by NVRTC (dev.ferry.device.kernel.KernelCompiler) and in CI by nvcc
// (TestKernelSourcesCompile), so it includes no headers: NVRTC has no host include path.
// Written for correctness first: one thread per output byte or value, no shared memory.
// Never yet run on a GPU; the Java reference is dev.ferry.device.kernel.ParquetLevelsReference.

// Expands definition levels, given as already-decoded runs, into an Arrow validity bitmap.
//
// Run r covers values [runStarts[r], runStarts[r] + runLengths[r]) and has level runLevels[r]
// (0 = null, 1 = valid). runStarts is the exclusive prefix sum of runLengths, computed by the
// host while it decodes the RLE/bit-packed hybrid's run headers (a bit-packed group arrives as
// runs of length 1 or longer, one per level change). The runs cover [0, valueCount) exactly.
//
// The bitmap is Arrow's: bit i is bit (i % 8) of byte (i / 8), LSB first, 1 = valid. One thread
// writes one whole byte, so no atomics are needed; bits at or after valueCount are written 0,
// as the CPU decoder leaves them. bitmap has (valueCount + 7) / 8 bytes.
extern "C" __global__ void ferry_levels_to_validity(
        const int* runStarts,
        const int* runLengths,
        const unsigned char* runLevels,
        int runCount,
        int valueCount,
        unsigned char* bitmap)
{
    long long byteIndex = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    long long byteCount = ((long long) valueCount + 7) / 8;
    if (byteIndex >= byteCount) {
        return;
    }
    // The last run whose start is <= the byte's first value: a binary search over runStarts.
    long long first = byteIndex * 8;
    int low = 0;
    int high = runCount - 1;
    while (low < high) {
        int middle = low + (high - low + 1) / 2;
        if (runStarts[middle] <= first) {
            low = middle;
        }
        else {
            high = middle - 1;
        }
    }
    unsigned int bits = 0;
    int run = low;
    for (int bit = 0; bit < 8; bit++) {
        long long value = first + bit;
        if (value >= valueCount) {
            break;
        }
        // Runs of length 0 are skipped here, so the search landing on one costs nothing.
        while (run < runCount - 1 && value >= (long long) runStarts[run] + runLengths[run]) {
            run++;
        }
        if (runLevels[run] != 0) {
            bits |= 1u << bit;
        }
    }
    bitmap[byteIndex] = (unsigned char) bits;
}

// A 16-byte slot (decimals of 16 bytes, INT96 padded slots) defined here rather than CUDA's uint4,
// so the file needs no vector-type header under NVRTC.
struct __attribute__((aligned(16))) FerrySlot16
{
    unsigned long long low;
    unsigned long long high;
};

// Scatters dense (non-null only) fixed-width values into their spaced positions.
//
// positions[i] is the exclusive prefix sum of the validity bits before value i (the host's or
// a scan kernel's), so a valid value i reads dense slot positions[i]. Null slots are written as
// zero bytes, the layout the CPU decoder produces. width is 1, 2, 4, 8 or 16 bytes (checked by
// the host); both buffers are separate allocations (256-byte aligned by cuMemAlloc) and every
// slot offset is a multiple of width, so the typed loads and stores are aligned.
extern "C" __global__ void ferry_scatter_spaced(
        const unsigned char* dense,
        const unsigned char* bitmap,
        const int* positions,
        int valueCount,
        int width,
        unsigned char* spaced)
{
    long long index = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= valueCount) {
        return;
    }
    bool valid = ((bitmap[index / 8] >> (index % 8)) & 1) != 0;
    long long source = valid ? (long long) positions[index] : 0;
    switch (width) {
        case 1:
            spaced[index] = valid ? dense[source] : (unsigned char) 0;
            break;
        case 2:
            ((unsigned short*) spaced)[index] = valid ? ((const unsigned short*) dense)[source] : (unsigned short) 0;
            break;
        case 4:
            ((unsigned int*) spaced)[index] = valid ? ((const unsigned int*) dense)[source] : 0u;
            break;
        case 8:
            ((unsigned long long*) spaced)[index] = valid ? ((const unsigned long long*) dense)[source] : 0ull;
            break;
        case 16:
        {
            FerrySlot16 slot = {0ull, 0ull};
            if (valid) {
                slot = ((const FerrySlot16*) dense)[source];
            }
            ((FerrySlot16*) spaced)[index] = slot;
            break;
        }
        default:
            // An unsupported width leaves the output untouched; the host rejects it before launch.
            break;
    }
}
