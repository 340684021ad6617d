// Byte ranges copied device to device in one launch: the page bodies of a column chunk a GDS read left
// in device memory sit between their Thrift headers, and each is moved into the layout the decode
// kernels read (compressed ones off nvCOMP's alignment into an aligned staging buffer; aligned ones are read in place). One cuMemcpyDtoD per body costs
// a driver call each (hundreds per chunk); this kernel moves all of a chunk's bodies in one launch.
//
// Compiled at run time by NVRTC and in CI by nvcc (TestKernelSourcesCompile); no headers.
// Never yet run on a GPU; the Java emulation is dev.ferry.gds.decode.cuda.KernelEmulation.

// ranges: count triples of 64-bit words (source address, target address, length in bytes). Range i
// is copied by block i, its threads striding over it. Where source and target have the same offset
// modulo 8, the bytes up to the first 8-byte boundary and after the last one are copied one by one and
// the middle as 8-byte words (aligned loads and stores on both ends); otherwise every byte one by one.
// A length of 0 copies nothing, nor does a negative one (the host refuses those and the Java emulation
// faults on them). A range's target must not overlap any source or any other target (blocks run in no
// defined order). Launch count x any block.
extern "C" __global__ void ferry_copy_ranges(const long long* ranges, int count)
{
    long long range = (long long) blockIdx.x;
    if (range >= count) {
        return;
    }
    unsigned long long sourceAddress = (unsigned long long) ranges[3 * range];
    unsigned long long targetAddress = (unsigned long long) ranges[3 * range + 1];
    long long length = ranges[3 * range + 2];
    if (length <= 0) {
        return;
    }
    const unsigned char* source = (const unsigned char*) sourceAddress;
    unsigned char* target = (unsigned char*) targetAddress;
    // [wordStart, wordEnd) goes as words; with misaligned ends both are length, so everything goes as bytes.
    long long wordStart = length;
    long long wordEnd = length;
    if (((sourceAddress ^ targetAddress) & 7ull) == 0) {
        wordStart = (long long) ((8ull - (sourceAddress & 7ull)) & 7ull);
        if (wordStart > length) {
            wordStart = length;
        }
        wordEnd = wordStart + (length - wordStart) / 8 * 8;
    }
    long long stride = (long long) blockDim.x;
    for (long long i = (long long) threadIdx.x; i < wordStart; i += stride) {
        target[i] = source[i];
    }
    const unsigned long long* sourceWords = (const unsigned long long*) (source + wordStart);
    unsigned long long* targetWords = (unsigned long long*) (target + wordStart);
    long long words = (wordEnd - wordStart) / 8;
    for (long long w = (long long) threadIdx.x; w < words; w += stride) {
        targetWords[w] = sourceWords[w];
    }
    for (long long i = wordEnd + (long long) threadIdx.x; i < length; i += stride) {
        target[i] = source[i];
    }
}
