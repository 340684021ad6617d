// Dictionary gathers and spaced placement of dense values: from a page's dense values (non-null
// only) or dictionary indices to the spaced Arrow layout the CPU decoder writes (null slots zero).
//
// Compiled at run time by NVRTC and in CI by nvcc (TestKernelSourcesCompile); no headers.
// Correctness first: one thread per output value (strings: per value, a byte loop).
// Never yet run on a GPU; the Java emulation is dev.ferry.gds.decode.cuda.KernelEmulation.
//
// Common arguments: bitmap is the Arrow validity bitmap (nullptr: every value valid) and
// positions[i] the dense slot of value i (ferry_scan_write over the levels; nullptr: slot i).
#define FERRY_ERROR_OVERRUN 1u
#define FERRY_ERROR_VALUE_RANGE 2u

__device__ bool ferry_valid(const unsigned char* bitmap, long long index)
{
    return bitmap == nullptr || ((bitmap[index >> 3] >> (index & 7)) & 1) != 0;
}

__device__ long long ferry_slot(const int* positions, long long index)
{
    return positions == nullptr ? index : (long long) positions[index];
}

// One fixed-width value: width bytes of source, or zeros for a null slot or a refused read (source nullptr).
__device__ void ferry_copy_or_zero(unsigned char* target, const unsigned char* source, int width)
{
    for (int b = 0; b < width; b++) {
        target[b] = source == nullptr ? (unsigned char) 0 : source[b];
    }
}

// Fixed-width dictionary gather: out[i] = dictionary[indices[slot(i)]] for valid i, width bytes
// (any width; the dictionary was converted to the Arrow width first: INT96 to micros, decimals to
// 16 bytes). An index at or past dictionarySize flags FERRY_ERROR_VALUE_RANGE and writes zeros
// (ferry_rle_expand already refuses such indices; this is the second guard, at the read itself).
extern "C" __global__ void ferry_dict_gather_fixed(
        const unsigned char* dictionary,
        int dictionarySize,
        int width,
        const unsigned int* indices,
        const unsigned char* bitmap,
        const int* positions,
        int valueCount,
        unsigned char* out,
        unsigned int* errors)
{
    long long index = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= valueCount) {
        return;
    }
    unsigned char* target = out + index * width;
    const unsigned char* source = nullptr;
    if (ferry_valid(bitmap, index)) {
        unsigned int id = indices[ferry_slot(positions, index)];
        if (id < (unsigned int) dictionarySize) {
            source = dictionary + (long long) id * width;
        }
        else {
            atomicOr(errors, FERRY_ERROR_VALUE_RANGE);
        }
    }
    ferry_copy_or_zero(target, source, width);
}

// Fixed-width PLAIN values placed at their spaced slots: out[i] = dense[slot(i)] (width bytes).
// A slot at or past denseCount (a page holding fewer values than its levels say) flags
// FERRY_ERROR_OVERRUN and writes zeros.
extern "C" __global__ void ferry_spaced_fixed(
        const unsigned char* dense,
        long long denseCount,
        int width,
        const unsigned char* bitmap,
        const int* positions,
        int valueCount,
        unsigned char* out,
        unsigned int* errors)
{
    long long index = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= valueCount) {
        return;
    }
    unsigned char* target = out + index * width;
    const unsigned char* source = nullptr;
    if (ferry_valid(bitmap, index)) {
        long long slot = ferry_slot(positions, index);
        if (slot < denseCount) {
            source = dense + slot * width;
        }
        else {
            atomicOr(errors, FERRY_ERROR_OVERRUN);
        }
    }
    ferry_copy_or_zero(target, source, width);
}

// PLAIN booleans (one bit each, LSB first, dense) to an Arrow bit vector: one thread per output
// byte; value i reads dense bit slotBase + slot(i) (slotBase lets a batch of a required column
// start mid-byte). A dense bit past denseCount flags FERRY_ERROR_OVERRUN and reads 0.
extern "C" __global__ void ferry_spaced_booleans(
        const unsigned char* dense,
        long long denseCount,
        long long slotBase,
        const unsigned char* bitmap,
        const int* positions,
        int valueCount,
        unsigned char* out,
        unsigned int* errors)
{
    long long byteIndex = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    if (byteIndex >= ((long long) valueCount + 7) / 8) {
        return;
    }
    unsigned int bits = 0;
    for (int bit = 0; bit < 8; bit++) {
        long long index = byteIndex * 8 + bit;
        if (index >= valueCount || !ferry_valid(bitmap, index)) {
            continue;
        }
        long long slot = slotBase + ferry_slot(positions, index);
        if (slot >= denseCount) {
            atomicOr(errors, FERRY_ERROR_OVERRUN);
            continue;
        }
        if (((dense[slot >> 3] >> (slot & 7)) & 1) != 0) {
            bits |= 1u << bit;
        }
    }
    out[byteIndex] = (unsigned char) bits;
}

// Appends bitCount bits (LSB first) of source at bit targetBitOffset of target: a page's PLAIN
// booleans into the chunk's dense bits. One thread per target byte touched; bits of a byte outside
// [targetBitOffset, targetBitOffset + bitCount) keep their value (the previous page's), so pages are
// appended one launch after another.
extern "C" __global__ void ferry_copy_bits(
        const unsigned char* source,
        long long bitCount,
        unsigned char* target,
        long long targetBitOffset)
{
    long long first = targetBitOffset >> 3;
    long long byteIndex = first + (long long) blockIdx.x * blockDim.x + threadIdx.x;
    if (bitCount <= 0 || byteIndex > (targetBitOffset + bitCount - 1) >> 3) {
        return;
    }
    unsigned int value = target[byteIndex];
    for (int bit = 0; bit < 8; bit++) {
        long long global = byteIndex * 8 + bit;
        long long from = global - targetBitOffset;
        if (from < 0 || from >= bitCount) {
            continue;
        }
        unsigned int set = (source[from >> 3] >> (from & 7)) & 1u;
        value = (value & ~(1u << bit)) | (set << bit);
    }
    target[byteIndex] = (unsigned char) value;
}

// Strings, step 1 of 2: lengths[i] = the byte length value i will have (0 for nulls), from a
// dictionary (dictionary != 0: entry indices[slot(i)] of dictionaryLengths, size entryCount) or
// from the page's own values (dictionary == 0: entry slot(i) of entryLengths). The host then runs
// ferry_scan_* over lengths into the Arrow offsets, and step 2 copies the bytes.
extern "C" __global__ void ferry_string_lengths(
        int dictionary,
        const unsigned int* entryLengths,
        int entryCount,
        const unsigned int* indices,
        const unsigned char* bitmap,
        const int* positions,
        int valueCount,
        unsigned int* lengths,
        unsigned int* errors)
{
    long long index = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= valueCount) {
        return;
    }
    unsigned int length = 0;
    if (ferry_valid(bitmap, index)) {
        long long slot = ferry_slot(positions, index);
        long long entry = dictionary != 0 ? (long long) indices[slot] : slot;
        if (entry < entryCount) {
            length = entryLengths[entry];
        }
        else {
            atomicOr(errors, dictionary != 0 ? FERRY_ERROR_VALUE_RANGE : FERRY_ERROR_OVERRUN);
        }
    }
    lengths[index] = length;
}

// Strings, step 2 of 2: copies value i's bytes from its entry (entryStarts[entry] in entryBytes,
// entryLengths[entry] long; entries chosen as in step 1) to data + offsets[i]. Entries were bounded
// by ferry_plain_byte_array_index against their page, and an out-of-range entry got length 0 in step 1.
extern "C" __global__ void ferry_string_gather(
        int dictionary,
        const unsigned char* entryBytes,
        const long long* entryStarts,
        const unsigned int* entryLengths,
        int entryCount,
        const unsigned int* indices,
        const unsigned char* bitmap,
        const int* positions,
        int valueCount,
        const int* offsets,
        unsigned char* data)
{
    long long index = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= valueCount || !ferry_valid(bitmap, index)) {
        return;
    }
    long long slot = ferry_slot(positions, index);
    long long entry = dictionary != 0 ? (long long) indices[slot] : slot;
    if (entry >= entryCount) {
        return;
    }
    const unsigned char* source = entryBytes + entryStarts[entry];
    unsigned char* target = data + offsets[index];
    long long length = offsets[index + 1] - offsets[index];
    for (long long b = 0; b < length; b++) {
        target[b] = source[b];
    }
}
