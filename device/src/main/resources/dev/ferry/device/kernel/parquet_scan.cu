// Exclusive prefix sums on the device: a value's dense slot (positions of valid values) and
// Arrow offsets of strings (sums of lengths).
//
// Compiled at run time by NVRTC and in CI by nvcc (TestKernelSourcesCompile); no headers.
// Correctness first: three passes over fixed chunks of `chunk` values (the host passes 1024),
// the middle pass one thread, so a page of n values takes n / chunk serial steps there.
// Never yet run on a GPU; the Java emulation is dev.ferry.gds.decode.cuda.KernelEmulation.
#define FERRY_ERROR_OFFSET_OVERFLOW 16u

// Pass 1, one thread per chunk: sums[c] = the sum of values[c * chunk, (c + 1) * chunk).
// With flagsOnly != 0 a value counts 1 when it equals `match` and 0 otherwise (definition
// levels to valid counts), else it counts itself (string lengths).
extern "C" __global__ void ferry_scan_chunk_sums(
        const unsigned int* values,
        int valueCount,
        int chunk,
        int flagsOnly,
        unsigned int match,
        unsigned long long* sums)
{
    long long c = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    long long chunkCount = ((long long) valueCount + chunk - 1) / chunk;
    if (c >= chunkCount) {
        return;
    }
    long long first = c * chunk;
    long long last = first + chunk < valueCount ? first + chunk : (long long) valueCount;
    unsigned long long sum = 0;
    for (long long i = first; i < last; i++) {
        sum += flagsOnly != 0 ? (values[i] == match ? 1ull : 0ull) : (unsigned long long) values[i];
    }
    sums[c] = sum;
}

// Pass 2, launch 1 x 1: sums becomes its exclusive prefix sum in place; sums[chunkCount] (one
// slot more than pass 1 wrote) gets the total.
extern "C" __global__ void ferry_scan_chunk_starts(unsigned long long* sums, int chunkCount)
{
    if (blockIdx.x != 0 || threadIdx.x != 0) {
        return;
    }
    unsigned long long running = 0;
    for (int c = 0; c < chunkCount; c++) {
        unsigned long long next = running + sums[c];
        sums[c] = running;
        running = next;
    }
    sums[chunkCount] = running;
}

// Pass 3, one thread per chunk: out[i] = the exclusive sum before value i, out[valueCount] = the
// total (Arrow offsets have valueCount + 1 entries). A sum past 2^31 - 1 does not fit an Arrow
// int32 offset: it flags FERRY_ERROR_OFFSET_OVERFLOW and is written as 0.
extern "C" __global__ void ferry_scan_write(
        const unsigned int* values,
        int valueCount,
        int chunk,
        int flagsOnly,
        unsigned int match,
        const unsigned long long* starts,
        int* out,
        unsigned int* errors)
{
    long long c = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    long long chunkCount = ((long long) valueCount + chunk - 1) / chunk;
    if (c >= chunkCount) {
        return;
    }
    long long first = c * chunk;
    long long last = first + chunk < valueCount ? first + chunk : (long long) valueCount;
    unsigned long long running = starts[c];
    for (long long i = first; i <= last; i++) {
        if (i == last && last != valueCount) {
            break;
        }
        if (running > 2147483647ull) {
            atomicOr(errors, FERRY_ERROR_OFFSET_OVERFLOW);
            out[i] = 0;
        }
        else {
            out[i] = (int) running;
        }
        if (i < last) {
            running += flagsOnly != 0 ? (values[i] == match ? 1ull : 0ull) : (unsigned long long) values[i];
        }
    }
}
