// Spark's hash partitioning of device-resident Arrow columns: Murmur3 row hashes bit for bit as
// Spark's Murmur3Hash expression (seed 42, each key's hash the next key's seed, a null key leaves
// the hash as it was), pmod(hash, n) partition ids, a per-partition histogram over chunks of rows,
// offsets, a stable scatter (rows keep their input order within a partition), and gathers into
// per-partition buffers (fixed-width values, bits, string offsets and bytes).
//
// Compiled at run time by NVRTC and in CI by nvcc (TestKernelSourcesCompile); no headers.
// Correctness first: the histogram and scatter walk fixed chunks of `chunk` rows per thread (the
// host passes 1024) so the scatter is stable without sorting; two passes are one thread.
// Never yet run on a GPU; the Java emulation is dev.ferry.device.partition.EmulatedPartitioner.
#define FERRY_ERROR_VALUE_RANGE 2u
#define FERRY_ERROR_OFFSET_OVERFLOW 16u

// Key kinds (dev.ferry.device.partition.PartitionKeyKind): how a key's Arrow value is hashed.
#define FERRY_KEY_INT32 0
#define FERRY_KEY_INT64 1
#define FERRY_KEY_FLOAT32 2
#define FERRY_KEY_FLOAT64 3
#define FERRY_KEY_BOOLEAN 4
#define FERRY_KEY_DECIMAL_LONG 5
#define FERRY_KEY_DECIMAL_BYTES 6

__device__ bool ferry_bit(const unsigned char* bits, long long index)
{
    return bits == nullptr || ((bits[index >> 3] >> (index & 7)) & 1) != 0;
}

__device__ unsigned int ferry_rotl32(unsigned int value, int shift)
{
    return (value << shift) | (value >> (32 - shift));
}

// Murmur3_x86_32 as org.apache.spark.unsafe.hash.Murmur3_x86_32: mixK1, mixH1, fmix.
__device__ unsigned int ferry_mix_k1(unsigned int k1)
{
    k1 *= 0xcc9e2d51u;
    k1 = ferry_rotl32(k1, 15);
    return k1 * 0x1b873593u;
}

__device__ unsigned int ferry_mix_h1(unsigned int h1, unsigned int k1)
{
    h1 ^= k1;
    h1 = ferry_rotl32(h1, 13);
    return h1 * 5u + 0xe6546b64u;
}

__device__ unsigned int ferry_fmix(unsigned int h1, unsigned int length)
{
    h1 ^= length;
    h1 ^= h1 >> 16;
    h1 *= 0x85ebca6bu;
    h1 ^= h1 >> 13;
    h1 *= 0xc2b2ae35u;
    return h1 ^ (h1 >> 16);
}

__device__ unsigned int ferry_hash_int(unsigned int value, unsigned int seed)
{
    return ferry_fmix(ferry_mix_h1(seed, ferry_mix_k1(value)), 4u);
}

__device__ unsigned int ferry_hash_long(unsigned long long value, unsigned int seed)
{
    unsigned int h1 = ferry_mix_h1(seed, ferry_mix_k1((unsigned int) value));
    h1 = ferry_mix_h1(h1, ferry_mix_k1((unsigned int) (value >> 32)));
    return ferry_fmix(h1, 8u);
}

// Spark's hashUnsafeBytes, which is not standard Murmur3 in its tail: whole 4-byte words little
// endian, then each remaining byte, sign-extended, mixed as a word of its own.
__device__ unsigned int ferry_hash_bytes(const unsigned char* bytes, int length, unsigned int seed)
{
    int aligned = length - length % 4;
    unsigned int h1 = seed;
    for (int i = 0; i < aligned; i += 4) {
        unsigned int word = (unsigned int) bytes[i] | ((unsigned int) bytes[i + 1] << 8) | ((unsigned int) bytes[i + 2] << 16) | ((unsigned int) bytes[i + 3] << 24);
        h1 = ferry_mix_h1(h1, ferry_mix_k1(word));
    }
    for (int i = aligned; i < length; i++) {
        unsigned int halfWord = (unsigned int) (int) (signed char) bytes[i];
        h1 = ferry_mix_h1(h1, ferry_mix_k1(halfWord));
    }
    return ferry_fmix(h1, (unsigned int) length);
}

// A 16-byte little-endian two's complement decimal as java.math.BigInteger.toByteArray has it:
// big endian, the fewest bytes that keep the sign (at least one), then hashed as Spark hashes them.
__device__ unsigned int ferry_hash_decimal_bytes(const unsigned char* value, unsigned int seed)
{
    unsigned char bigEndian[16];
    for (int i = 0; i < 16; i++) {
        bigEndian[i] = value[15 - i];
    }
    int first = 0;
    while (first < 15
            && ((bigEndian[first] == 0x00 && (bigEndian[first + 1] & 0x80) == 0) || (bigEndian[first] == 0xFF && (bigEndian[first + 1] & 0x80) != 0))) {
        first++;
    }
    return ferry_hash_bytes(bigEndian + first, 16 - first, seed);
}

// hashes[i] = 42, Spark's seed, before the first key column.
extern "C" __global__ void ferry_murmur3_seed(int rows, unsigned int* hashes)
{
    long long row = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) {
        return;
    }
    hashes[row] = 42u;
}

// One fixed-width key column folded into the running hashes (one thread per row): kind is a
// FERRY_KEY_*; a null (validity bit clear; validity nullptr: all valid) leaves the hash unchanged.
// Floats and doubles as Spark: -0.0 hashes as 0, every NaN as the canonical NaN's bits.
extern "C" __global__ void ferry_murmur3_fixed(
        const unsigned char* values,
        const unsigned char* validity,
        int kind,
        int rows,
        unsigned int* hashes)
{
    long long row = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows || !ferry_bit(validity, row)) {
        return;
    }
    unsigned int seed = hashes[row];
    unsigned int hash = seed;
    if (kind == FERRY_KEY_INT32) {
        const unsigned char* p = values + row * 4;
        hash = ferry_hash_int((unsigned int) p[0] | ((unsigned int) p[1] << 8) | ((unsigned int) p[2] << 16) | ((unsigned int) p[3] << 24), seed);
    }
    else if (kind == FERRY_KEY_FLOAT32) {
        const unsigned char* p = values + row * 4;
        unsigned int bits = (unsigned int) p[0] | ((unsigned int) p[1] << 8) | ((unsigned int) p[2] << 16) | ((unsigned int) p[3] << 24);
        if (bits == 0x80000000u) {
            bits = 0u;
        }
        else if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x007fffffu) != 0u) {
            bits = 0x7fc00000u;
        }
        hash = ferry_hash_int(bits, seed);
    }
    else if (kind == FERRY_KEY_INT64 || kind == FERRY_KEY_FLOAT64 || kind == FERRY_KEY_DECIMAL_LONG) {
        // A decimal of precision <= 18 hashes its unscaled long: the low 8 bytes of the 16.
        const unsigned char* p = values + row * (kind == FERRY_KEY_DECIMAL_LONG ? 16 : 8);
        unsigned long long bits = 0;
        for (int b = 7; b >= 0; b--) {
            bits = (bits << 8) | p[b];
        }
        if (kind == FERRY_KEY_FLOAT64) {
            if (bits == 0x8000000000000000ull) {
                bits = 0ull;
            }
            else if ((bits & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (bits & 0x000fffffffffffffull) != 0ull) {
                bits = 0x7ff8000000000000ull;
            }
        }
        hash = ferry_hash_long(bits, seed);
    }
    else if (kind == FERRY_KEY_BOOLEAN) {
        hash = ferry_hash_int(ferry_bit(values, row) ? 1u : 0u, seed);
    }
    else if (kind == FERRY_KEY_DECIMAL_BYTES) {
        hash = ferry_hash_decimal_bytes(values + row * 16, seed);
    }
    hashes[row] = hash;
}

// One string or binary key column (Arrow int32 offsets and bytes) folded into the running hashes.
extern "C" __global__ void ferry_murmur3_bytes(
        const int* offsets,
        const unsigned char* data,
        const unsigned char* validity,
        int rows,
        unsigned int* hashes)
{
    long long row = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows || !ferry_bit(validity, row)) {
        return;
    }
    int start = offsets[row];
    hashes[row] = ferry_hash_bytes(data + start, offsets[row + 1] - start, hashes[row]);
}

// ids[i] = pmod(hash, partitions) with the hash as Spark's signed int.
extern "C" __global__ void ferry_partition_ids(const unsigned int* hashes, int rows, int partitions, int* ids)
{
    long long row = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) {
        return;
    }
    int remainder = (int) hashes[row] % partitions;
    ids[row] = remainder < 0 ? remainder + partitions : remainder;
}

// words[i] = 0 (error words and counters).
extern "C" __global__ void ferry_partition_clear(int count, unsigned int* words)
{
    long long index = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= count) {
        return;
    }
    words[index] = 0u;
}

// One thread per chunk c: counts[c * partitions + p] = the rows of [c * chunk, (c + 1) * chunk)
// whose id is p. An id outside [0, partitions) flags FERRY_ERROR_VALUE_RANGE and is not counted.
extern "C" __global__ void ferry_partition_histogram(
        const int* ids,
        int rows,
        int chunk,
        int partitions,
        unsigned int* counts,
        unsigned int* errors)
{
    long long c = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    long long chunkCount = ((long long) rows + chunk - 1) / chunk;
    if (c >= chunkCount) {
        return;
    }
    unsigned int* own = counts + c * partitions;
    for (int p = 0; p < partitions; p++) {
        own[p] = 0u;
    }
    long long first = c * chunk;
    long long last = first + chunk < rows ? first + chunk : (long long) rows;
    for (long long i = first; i < last; i++) {
        int id = ids[i];
        if (id < 0 || id >= partitions) {
            atomicOr(errors, FERRY_ERROR_VALUE_RANGE);
            continue;
        }
        own[id]++;
    }
}

// One thread per partition p: counts[c * partitions + p] becomes the rows of p in the chunks
// before c (exclusive scan down the chunks), totals[p] the rows of p.
extern "C" __global__ void ferry_partition_scan_chunks(unsigned int* counts, int chunkCount, int partitions, unsigned int* totals)
{
    long long p = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= partitions) {
        return;
    }
    unsigned int running = 0;
    for (long long c = 0; c < chunkCount; c++) {
        unsigned int count = counts[c * partitions + p];
        counts[c * partitions + p] = running;
        running += count;
    }
    totals[p] = running;
}

// Launch 1 x 1: starts[p] = the first output row of partition p, starts[partitions] = all rows.
extern "C" __global__ void ferry_partition_starts(const unsigned int* totals, int partitions, int* starts)
{
    if (blockIdx.x != 0 || threadIdx.x != 0) {
        return;
    }
    int running = 0;
    for (int p = 0; p < partitions; p++) {
        starts[p] = running;
        running += (int) totals[p];
    }
    starts[partitions] = running;
}

// One thread per chunk, rows in input order: order[starts[p] + rank] = row, rank counting p's rows
// before it (the chunk's slot of counts, owned by this thread, is its running cursor). So
// order[starts[p] .. starts[p + 1]) lists partition p's input rows in input order.
extern "C" __global__ void ferry_partition_scatter(
        const int* ids,
        int rows,
        int chunk,
        int partitions,
        unsigned int* counts,
        const int* starts,
        int* order)
{
    long long c = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    long long chunkCount = ((long long) rows + chunk - 1) / chunk;
    if (c >= chunkCount) {
        return;
    }
    unsigned int* cursor = counts + c * partitions;
    long long first = c * chunk;
    long long last = first + chunk < rows ? first + chunk : (long long) rows;
    for (long long i = first; i < last; i++) {
        int id = ids[i];
        if (id < 0 || id >= partitions) {
            continue;
        }
        order[starts[id] + (int) cursor[id]] = (int) i;
        cursor[id]++;
    }
}

// nulls[ids[row]] += 1 for each null row (one thread per row; validity non-null).
extern "C" __global__ void ferry_partition_null_counts(const unsigned char* validity, const int* ids, int rows, unsigned int* nulls)
{
    long long row = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows || ferry_bit(validity, row)) {
        return;
    }
    atomicAdd(nulls + ids[row], 1u);
}

// Fixed-width gather into one partition's buffer, one thread per output row:
// out[i] = values[order[first + i]], width bytes.
extern "C" __global__ void ferry_gather_fixed(
        const unsigned char* values,
        int width,
        const int* order,
        int first,
        int count,
        unsigned char* out)
{
    long long index = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= count) {
        return;
    }
    const unsigned char* source = values + (long long) order[first + index] * width;
    unsigned char* target = out + index * width;
    for (int b = 0; b < width; b++) {
        target[b] = source[b];
    }
}

// Bit gather (validity bitmaps, boolean values) into one partition's buffer, one thread per output
// byte: bit i of out = bit order[first + i] of bits (bits nullptr: every bit set); bits past count 0.
extern "C" __global__ void ferry_gather_bits(
        const unsigned char* bits,
        const int* order,
        int first,
        int count,
        unsigned char* out)
{
    long long byteIndex = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    if (byteIndex >= ((long long) count + 7) / 8) {
        return;
    }
    unsigned int value = 0;
    for (int bit = 0; bit < 8; bit++) {
        long long index = byteIndex * 8 + bit;
        if (index < count && ferry_bit(bits, order[first + index])) {
            value |= 1u << bit;
        }
    }
    out[byteIndex] = (unsigned char) value;
}

// Strings, step 1: lengths[j] = the byte length of output row j (all partitions, output order).
extern "C" __global__ void ferry_gather_string_lengths(const int* offsets, const int* order, int rows, unsigned int* lengths)
{
    long long j = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= rows) {
        return;
    }
    int row = order[j];
    lengths[j] = (unsigned int) (offsets[row + 1] - offsets[row]);
}

// Strings, step 2 (three passes, as ferry_scan_*): positions[j] = the bytes before output row j,
// positions[rows] = all bytes. Pass 1, one thread per chunk: sums[c] = the chunk's bytes.
extern "C" __global__ void ferry_partition_sum_chunks(const unsigned int* lengths, int rows, int chunk, unsigned long long* sums)
{
    long long c = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    long long chunkCount = ((long long) rows + chunk - 1) / chunk;
    if (c >= chunkCount) {
        return;
    }
    long long first = c * chunk;
    long long last = first + chunk < rows ? first + chunk : (long long) rows;
    unsigned long long sum = 0;
    for (long long i = first; i < last; i++) {
        sum += lengths[i];
    }
    sums[c] = sum;
}

// Pass 2, launch 1 x 1: sums becomes its exclusive prefix sum; sums[chunkCount] the total.
extern "C" __global__ void ferry_partition_sum_starts(unsigned long long* sums, int chunkCount)
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

// Pass 3, one thread per chunk. The input's bytes fit int32 offsets, and a permutation of its rows
// has the same bytes; a sum past 2^31 - 1 (bad offsets) flags FERRY_ERROR_OFFSET_OVERFLOW, writes 0.
extern "C" __global__ void ferry_partition_sum_write(
        const unsigned int* lengths,
        int rows,
        int chunk,
        const unsigned long long* sums,
        int* positions,
        unsigned int* errors)
{
    long long c = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    long long chunkCount = ((long long) rows + chunk - 1) / chunk;
    if (c >= chunkCount) {
        return;
    }
    long long first = c * chunk;
    long long last = first + chunk < rows ? first + chunk : (long long) rows;
    unsigned long long running = sums[c];
    for (long long i = first; i <= last; i++) {
        if (i == last && last != rows) {
            break;
        }
        if (running > 2147483647ull) {
            atomicOr(errors, FERRY_ERROR_OFFSET_OVERFLOW);
            positions[i] = 0;
        }
        else {
            positions[i] = (int) running;
        }
        if (i < last) {
            running += lengths[i];
        }
    }
}

// Strings, step 3, one thread per partition boundary p in [0, partitions]:
// bounds[p] = positions[starts[p]], the first byte of partition p's strings.
extern "C" __global__ void ferry_partition_string_bounds(const int* positions, const int* starts, int partitions, int* bounds)
{
    long long p = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    if (p > partitions) {
        return;
    }
    bounds[p] = positions[starts[p]];
}

// Strings, step 4, one partition: its Arrow offsets, one thread per entry i in [0, count]:
// out[i] = positions[first + i] - positions[first].
extern "C" __global__ void ferry_gather_string_offsets(const int* positions, int first, int count, int* out)
{
    long long index = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    if (index > count) {
        return;
    }
    out[index] = positions[first + index] - positions[first];
}

// Strings, step 5, one partition: row i's bytes to outData + outOffsets[i], one thread per row.
extern "C" __global__ void ferry_gather_string_bytes(
        const int* offsets,
        const unsigned char* data,
        const int* order,
        int first,
        int count,
        const int* outOffsets,
        unsigned char* outData)
{
    long long index = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= count) {
        return;
    }
    int row = order[first + index];
    const unsigned char* source = data + offsets[row];
    unsigned char* target = outData + outOffsets[index];
    int length = outOffsets[index + 1] - outOffsets[index];
    for (int b = 0; b < length; b++) {
        target[b] = source[b];
    }
}
