// PLAIN page values on the device: BYTE_ARRAY entries indexed, and the fixed-width conversions from
// a Parquet physical type to the Arrow type Spark reads (applied to a dense array, a page's values
// or a dictionary's entries, before the gather or the spaced placement).
//
// Compiled at run time by NVRTC and in CI by nvcc (TestKernelSourcesCompile); no headers.
// Never yet run on a GPU; the Java emulation is dev.ferry.gds.decode.cuda.KernelEmulation.
#define FERRY_ERROR_OVERRUN 1u
#define FERRY_ERROR_VALUE_RANGE 2u

__device__ long long ferry_load_le(const unsigned char* bytes, int count)
{
    unsigned long long value = 0;
    for (int i = 0; i < count; i++) {
        value |= (unsigned long long) bytes[i] << (8 * i);
    }
    return (long long) value;
}

// PLAIN BYTE_ARRAY: each entry is a 4-byte little-endian length and that many bytes. One thread
// walks entryCount entries of data[0, byteCount) (each start depends on every earlier length),
// writing where each entry's bytes start (startBase + the offset in data: the host passes where data
// sits in the buffer the gather reads, so pages of one chunk share one entry table) and how long
// they are. A length or bytes past the page
// flag FERRY_ERROR_OVERRUN; that entry and the ones after it get length 0. Launch 1 x 1.
extern "C" __global__ void ferry_plain_byte_array_index(
        const unsigned char* data,
        long long byteCount,
        int entryCount,
        long long startBase,
        long long* entryStarts,
        unsigned int* entryLengths,
        unsigned int* errors)
{
    if (blockIdx.x != 0 || threadIdx.x != 0) {
        return;
    }
    long long position = 0;
    bool bad = false;
    for (int entry = 0; entry < entryCount; entry++) {
        unsigned int length = 0;
        if (!bad) {
            if (position + 4 > byteCount) {
                bad = true;
            }
            else {
                length = (unsigned int) ferry_load_le(data + position, 4);
                if ((long long) length > byteCount - position - 4) {
                    bad = true;
                    length = 0;
                }
            }
            if (bad) {
                atomicOr(errors, FERRY_ERROR_OVERRUN);
            }
        }
        entryStarts[entry] = bad ? startBase : startBase + position + 4;
        entryLengths[entry] = length;
        if (!bad) {
            position += 4 + (long long) length;
        }
    }
}

// INT96 (8 bytes little-endian nanos of day, 4 bytes little-endian Julian day) to Spark's
// microseconds since the epoch, no calendar rebase, exactly as the CPU decoder computes it:
// (julianDay - 2440588) * 86400000000 + nanosOfDay / 1000, with Java's wrapping long arithmetic
// (unsigned here, since signed overflow is undefined in C) and Java's truncating division.
extern "C" __global__ void ferry_int96_to_micros(const unsigned char* in, int count, long long* out)
{
    long long index = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= count) {
        return;
    }
    const unsigned char* value = in + index * 12;
    long long nanosOfDay = ferry_load_le(value, 8);
    long long julianDay = (long long) (int) (unsigned int) ferry_load_le(value + 8, 4);
    unsigned long long days = (unsigned long long) (julianDay - 2440588LL);
    out[index] = (long long) (days * 86400000000ull + (unsigned long long) (nanosOfDay / 1000));
}

// INT64 timestamps to microseconds: MILLIS multiply by 1000 (a value that overflows flags
// FERRY_ERROR_VALUE_RANGE and is written 0, as Java's multiplyExact refuses it), NANOS divide by
// 1000 rounding toward negative infinity (Math.floorDiv); scale 1 copies (MICROS).
extern "C" __global__ void ferry_timestamp_to_micros(const long long* in, int count, int multiply, int divide, long long* out, unsigned int* errors)
{
    long long index = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= count) {
        return;
    }
    long long value = in[index];
    if (multiply > 1) {
        long long limit = 9223372036854775807LL / multiply;
        if (value > limit || value < -limit) {
            atomicOr(errors, FERRY_ERROR_VALUE_RANGE);
            value = 0;
        }
        else {
            value *= multiply;
        }
    }
    if (divide > 1) {
        long long quotient = value / divide;
        if ((value % divide) != 0 && value < 0) {
            quotient--;
        }
        value = quotient;
    }
    out[index] = value;
}

// Unscaled decimals to Arrow's 16-byte little-endian two's complement decimal128: INT32 and INT64
// (inWidth 4 or 8, little endian) sign-extended; FIXED_LEN_BYTE_ARRAY (inWidth 1..16, big endian,
// bigEndian != 0) byte-reversed and sign-extended. A width above 16 flags FERRY_ERROR_VALUE_RANGE
// and writes zeros (the host refuses such columns first).
extern "C" __global__ void ferry_decimal_to_128(const unsigned char* in, int count, int inWidth, int bigEndian, unsigned char* out, unsigned int* errors)
{
    long long index = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= count) {
        return;
    }
    unsigned char* target = out + index * 16;
    if (inWidth < 1 || inWidth > 16) {
        atomicOr(errors, FERRY_ERROR_VALUE_RANGE);
        for (int b = 0; b < 16; b++) {
            target[b] = 0;
        }
        return;
    }
    const unsigned char* value = in + index * inWidth;
    // The most significant input byte carries the sign.
    unsigned char top = bigEndian != 0 ? value[0] : value[inWidth - 1];
    unsigned char fill = (top & 0x80) != 0 ? (unsigned char) 0xFF : (unsigned char) 0;
    for (int b = 0; b < 16; b++) {
        if (b < inWidth) {
            target[b] = bigEndian != 0 ? value[inWidth - 1 - b] : value[b];
        }
        else {
            target[b] = fill;
        }
    }
}

// INT32 values to Spark's narrower integer types: the low outWidth bytes (1 for ByteType, 2 for
// ShortType), little endian, as Java's (byte) and (short) casts keep them.
extern "C" __global__ void ferry_int32_narrow(const int* in, int count, int outWidth, unsigned char* out)
{
    long long index = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= count) {
        return;
    }
    unsigned int value = (unsigned int) in[index];
    for (int b = 0; b < outWidth; b++) {
        out[index * outWidth + b] = (unsigned char) (value >> (8 * b));
    }
}
