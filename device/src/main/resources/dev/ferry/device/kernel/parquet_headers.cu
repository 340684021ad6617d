// The page headers of Parquet column chunks walked on the device, so that a chunk read into device
// memory (GDS) need not come back to the host for parquet-mr to parse its Thrift headers: only the
// small fixed-size descriptors below cross.
//
// Compiled at run time by NVRTC and in CI by nvcc (TestKernelSourcesCompile), and for the host by
// the tests' HostKernelServer, so it is plain C: no headers, no recursion (Thrift's nesting is
// stepped over with an explicit, bounded stack), no library calls. Never yet run on a GPU; the
// Java emulation with the same index math and error codes is dev.ferry.gds.decode.cuda.KernelEmulation,
// and dev.ferry.gds.decode.cuda.PageHeaderSlots holds the same layout and codes.
//
// A PageHeader is a Thrift compact-protocol struct: a field header byte (field id delta in the high
// nibble, 0 meaning a zigzag i16 id follows; compact type in the low nibble, 0 the struct's end),
// then the value. Fields read: 1 type, 2 uncompressed_page_size, 3 compressed_page_size, 4 crc,
// 5 data_page_header {1 num_values, 2 encoding, 3 definition_level_encoding,
// 4 repetition_level_encoding}, 7 dictionary_page_header {1 num_values, 2 encoding, 3 is_sorted},
// 8 data_page_header_v2 {1 num_values, 2 num_nulls, 3 num_rows, 4 encoding,
// 5 definition_levels_byte_length, 6 repetition_levels_byte_length, 7 is_compressed}; every other
// field (statistics, index_page_header, fields added later) is stepped over whatever its type.
//
// Bad bytes never make the walk read past its chunk: every read is checked against the chunk's
// length, and the first problem ends the chunk's walk with an error code and the chunk offsets of
// the page header and of the value at fault. Sizes, counts and lengths that are negative, i32s that
// do not fit 32 bits, varints longer than 10 bytes, a missing required field, an unknown page type
// or compact type, and a page body past the chunk's end are errors. The host checks the rest
// (encoding ids, value counts, page limits) on the descriptors.

// Descriptor slot: FERRY_HEADERS_SLOT_FIELDS long longs per page, -1 where the page type has no such field.
#define FERRY_HEADERS_SLOT_FIELDS 16
#define FERRY_HEADERS_TYPE 0
#define FERRY_HEADERS_HEADER_OFFSET 1
#define FERRY_HEADERS_BODY_OFFSET 2
#define FERRY_HEADERS_COMPRESSED_SIZE 3
#define FERRY_HEADERS_UNCOMPRESSED_SIZE 4
#define FERRY_HEADERS_VALUE_COUNT 5
#define FERRY_HEADERS_ENCODING 6
#define FERRY_HEADERS_DEFINITION_ENCODING 7
#define FERRY_HEADERS_REPETITION_ENCODING 8
#define FERRY_HEADERS_DEFINITION_LENGTH 9
#define FERRY_HEADERS_REPETITION_LENGTH 10
#define FERRY_HEADERS_NULL_COUNT 11
#define FERRY_HEADERS_ROW_COUNT 12
#define FERRY_HEADERS_IS_COMPRESSED 13
#define FERRY_HEADERS_HAS_CRC 14
#define FERRY_HEADERS_CRC 15

// Page types (Thrift ids); index pages are walked over and not described.
#define FERRY_HEADERS_DATA_PAGE 0
#define FERRY_HEADERS_INDEX_PAGE 1
#define FERRY_HEADERS_DICTIONARY_PAGE 2
#define FERRY_HEADERS_DATA_PAGE_V2 3

// Error codes (one per chunk, the first met).
#define FERRY_HEADERS_TRUNCATED 1
#define FERRY_HEADERS_LONG_VARINT 2
#define FERRY_HEADERS_INT_RANGE 3
#define FERRY_HEADERS_NEGATIVE 4
#define FERRY_HEADERS_BODY_PAST_END 5
#define FERRY_HEADERS_TOO_DEEP 6
#define FERRY_HEADERS_MISSING_FIELD 7
#define FERRY_HEADERS_PAGE_TYPE 8
#define FERRY_HEADERS_COMPACT_TYPE 9

// Containers a skipped value may nest (structs, lists, sets, maps inside one another).
#define FERRY_HEADERS_MAX_DEPTH 16

// Compact protocol types.
#define FERRY_COMPACT_TRUE 1
#define FERRY_COMPACT_FALSE 2
#define FERRY_COMPACT_BYTE 3
#define FERRY_COMPACT_I16 4
#define FERRY_COMPACT_I32 5
#define FERRY_COMPACT_I64 6
#define FERRY_COMPACT_DOUBLE 7
#define FERRY_COMPACT_BINARY 8
#define FERRY_COMPACT_LIST 9
#define FERRY_COMPACT_SET 10
#define FERRY_COMPACT_MAP 11
#define FERRY_COMPACT_STRUCT 12

typedef struct
{
    const unsigned char* data;
    long long length;
    long long position;
    int error;
    long long errorAt;
} FerryHeadersCursor;

// Records the first error only: later reads see c->error and do nothing.
__device__ void ferry_headers_fail(FerryHeadersCursor* c, int code, long long at)
{
    if (c->error == 0) {
        c->error = code;
        c->errorAt = at;
    }
}

// The next byte, or a truncation error at it when the chunk has ended.
__device__ unsigned int ferry_headers_byte(FerryHeadersCursor* c)
{
    if (c->error != 0) {
        return 0u;
    }
    if (c->position >= c->length) {
        ferry_headers_fail(c, FERRY_HEADERS_TRUNCATED, c->position);
        return 0u;
    }
    unsigned int value = c->data[c->position];
    c->position++;
    return value;
}

// Steps over bytes bytes; fewer left is a truncation error where they start.
__device__ void ferry_headers_advance(FerryHeadersCursor* c, unsigned long long bytes)
{
    if (c->error != 0) {
        return;
    }
    if (bytes > (unsigned long long) (c->length - c->position)) {
        ferry_headers_fail(c, FERRY_HEADERS_TRUNCATED, c->position);
        return;
    }
    c->position += (long long) bytes;
}

// An unsigned LEB128 varint of at most 10 bytes (a tenth byte above 1 would overflow 64 bits);
// errors are reported at the varint's first byte.
__device__ unsigned long long ferry_headers_varint(FerryHeadersCursor* c)
{
    if (c->error != 0) {
        return 0ull;
    }
    long long start = c->position;
    unsigned long long value = 0;
    for (int i = 0; i < 10; i++) {
        if (c->position >= c->length) {
            ferry_headers_fail(c, FERRY_HEADERS_TRUNCATED, start);
            return 0ull;
        }
        unsigned int next = c->data[c->position];
        c->position++;
        if (i == 9 && next > 1u) {
            break;
        }
        value |= (unsigned long long) (next & 0x7Fu) << (7 * i);
        if ((next & 0x80u) == 0) {
            return value;
        }
    }
    ferry_headers_fail(c, FERRY_HEADERS_LONG_VARINT, start);
    return 0ull;
}

// A zigzag varint (Thrift's i16, i32), which must lie in [low, high].
__device__ long long ferry_headers_int(FerryHeadersCursor* c, long long low, long long high)
{
    long long start = c->position;
    unsigned long long raw = ferry_headers_varint(c);
    if (c->error != 0) {
        return 0;
    }
    long long value = (long long) (raw >> 1) ^ -(long long) (raw & 1ull);
    if (value < low || value > high) {
        ferry_headers_fail(c, FERRY_HEADERS_INT_RANGE, start);
        return 0;
    }
    return value;
}

__device__ long long ferry_headers_i32(FerryHeadersCursor* c)
{
    return ferry_headers_int(c, -2147483647ll - 1, 2147483647ll);
}

// A size, count or length: an i32 that must not be negative.
__device__ long long ferry_headers_count(FerryHeadersCursor* c)
{
    long long start = c->position;
    long long value = ferry_headers_i32(c);
    if (c->error == 0 && value < 0) {
        ferry_headers_fail(c, FERRY_HEADERS_NEGATIVE, start);
        return 0;
    }
    return value;
}

// A field header: its compact type, 0 at the struct's end (or on an error); *lastId becomes its id
// (the previous id plus the delta, or the long form's zigzag i16).
__device__ int ferry_headers_field(FerryHeadersCursor* c, long long* lastId)
{
    unsigned int header = ferry_headers_byte(c);
    if (c->error != 0) {
        return 0;
    }
    int type = (int) (header & 0x0Fu);
    if (type == 0) {
        return 0;
    }
    int delta = (int) (header >> 4);
    if (delta == 0) {
        *lastId = ferry_headers_int(c, -32768, 32767);
    }
    else {
        *lastId += delta;
    }
    return c->error != 0 ? 0 : type;
}

__device__ int ferry_headers_known_type(int type)
{
    return type >= FERRY_COMPACT_TRUE && type <= FERRY_COMPACT_STRUCT;
}

// Steps over one value of compact type `type` read as a struct field (a bool field's value is its
// type, with no byte of its own) and everything nested in it. Containers go on an explicit stack of
// at most FERRY_HEADERS_MAX_DEPTH frames; each element takes at least one byte, so a container
// declaring more elements than bytes remain is a truncation error at its header.
__device__ void ferry_headers_skip(FerryHeadersCursor* c, int type)
{
    int kinds[FERRY_HEADERS_MAX_DEPTH];
    int keyTypes[FERRY_HEADERS_MAX_DEPTH];
    int valueTypes[FERRY_HEADERS_MAX_DEPTH];
    unsigned long long left[FERRY_HEADERS_MAX_DEPTH];
    int depth = 0;
    int pending = type;
    int inField = 1;
    while (c->error == 0) {
        long long start = c->position;
        if (pending == FERRY_COMPACT_TRUE || pending == FERRY_COMPACT_FALSE) {
            if (!inField) {
                ferry_headers_byte(c);
            }
        }
        else if (pending == FERRY_COMPACT_BYTE) {
            ferry_headers_byte(c);
        }
        else if (pending == FERRY_COMPACT_I16 || pending == FERRY_COMPACT_I32 || pending == FERRY_COMPACT_I64) {
            ferry_headers_varint(c);
        }
        else if (pending == FERRY_COMPACT_DOUBLE) {
            ferry_headers_advance(c, 8ull);
        }
        else if (pending == FERRY_COMPACT_BINARY) {
            unsigned long long length = ferry_headers_varint(c);
            ferry_headers_advance(c, length);
        }
        else if (pending >= FERRY_COMPACT_LIST && pending <= FERRY_COMPACT_STRUCT) {
            if (depth == FERRY_HEADERS_MAX_DEPTH) {
                ferry_headers_fail(c, FERRY_HEADERS_TOO_DEEP, start);
                return;
            }
            unsigned long long elements = 0;
            int keyType = 0;
            int valueType = 0;
            if (pending == FERRY_COMPACT_MAP) {
                unsigned long long entries = ferry_headers_varint(c);
                if (entries > 0) {
                    unsigned int types = ferry_headers_byte(c);
                    keyType = (int) (types >> 4);
                    valueType = (int) (types & 0x0Fu);
                    if (c->error == 0 && (!ferry_headers_known_type(keyType) || !ferry_headers_known_type(valueType))) {
                        ferry_headers_fail(c, FERRY_HEADERS_COMPACT_TYPE, start);
                    }
                    if (c->error == 0 && entries > (unsigned long long) (c->length - c->position) / 2) {
                        ferry_headers_fail(c, FERRY_HEADERS_TRUNCATED, start);
                    }
                    elements = 2 * entries;
                }
            }
            else if (pending != FERRY_COMPACT_STRUCT) {
                unsigned int header = ferry_headers_byte(c);
                elements = header >> 4;
                keyType = (int) (header & 0x0Fu);
                valueType = keyType;
                if (elements == 15) {
                    elements = ferry_headers_varint(c);
                }
                if (c->error == 0 && !ferry_headers_known_type(keyType)) {
                    ferry_headers_fail(c, FERRY_HEADERS_COMPACT_TYPE, start);
                }
                if (c->error == 0 && elements > (unsigned long long) (c->length - c->position)) {
                    ferry_headers_fail(c, FERRY_HEADERS_TRUNCATED, start);
                }
            }
            if (c->error != 0) {
                return;
            }
            kinds[depth] = pending;
            keyTypes[depth] = keyType;
            valueTypes[depth] = valueType;
            left[depth] = elements;
            depth++;
        }
        else {
            ferry_headers_fail(c, FERRY_HEADERS_COMPACT_TYPE, start);
            return;
        }
        // The next value: a field of the innermost struct, or the next element of the innermost container.
        pending = 0;
        while (depth > 0 && c->error == 0 && pending == 0) {
            int top = depth - 1;
            if (kinds[top] == FERRY_COMPACT_STRUCT) {
                long long ignored = 0;
                pending = ferry_headers_field(c, &ignored);
                inField = 1;
                if (pending == 0) {
                    depth--;
                }
            }
            else if (left[top] == 0) {
                depth--;
            }
            else {
                pending = (kinds[top] == FERRY_COMPACT_MAP && left[top] % 2 == 0) ? keyTypes[top] : valueTypes[top];
                left[top]--;
                inField = 0;
            }
        }
        if (pending == 0) {
            return;
        }
    }
}

// A page header's nested struct whose fields 1..intCount are i32s (those whose bit is set in
// countMask must not be negative), all required, and whose field boolId (0: none) is a bool; each
// lands in out[id - 1], every other field is stepped over. A missing field is an error at the
// struct's end.
__device__ void ferry_headers_nested(FerryHeadersCursor* c, int intCount, int countMask, int boolId, long long* out)
{
    long long id = 0;
    int seen = 0;
    int type;
    while ((type = ferry_headers_field(c, &id)) != 0) {
        if (id >= 1 && id <= intCount && type == FERRY_COMPACT_I32) {
            int bit = (int) id - 1;
            out[bit] = ((countMask >> bit) & 1) != 0 ? ferry_headers_count(c) : ferry_headers_i32(c);
            seen |= 1 << bit;
        }
        else if (boolId > 0 && id == boolId && (type == FERRY_COMPACT_TRUE || type == FERRY_COMPACT_FALSE)) {
            out[boolId - 1] = type == FERRY_COMPACT_TRUE ? 1 : 0;
        }
        else {
            ferry_headers_skip(c, type);
        }
    }
    if (c->error == 0 && seen != (1 << intCount) - 1) {
        ferry_headers_fail(c, FERRY_HEADERS_MISSING_FIELD, c->position - 1);
    }
}

// One PageHeader at c->position into d (a slot's fields), then its body stepped over.
__device__ void ferry_headers_page(FerryHeadersCursor* c, long long* d)
{
    long long v1[4];
    long long dictionary[3];
    long long v2[7];
    int structs = 0;
    for (int i = 0; i < FERRY_HEADERS_SLOT_FIELDS; i++) {
        d[i] = -1;
        if (i < 4) {
            v1[i] = -1;
        }
        if (i < 3) {
            dictionary[i] = -1;
        }
        if (i < 7) {
            v2[i] = -1;
        }
    }
    d[FERRY_HEADERS_HEADER_OFFSET] = c->position;
    d[FERRY_HEADERS_IS_COMPRESSED] = 1;
    d[FERRY_HEADERS_HAS_CRC] = 0;
    v2[6] = 1;
    long long typeAt = -1;
    int seen = 0;
    long long id = 0;
    int type;
    while ((type = ferry_headers_field(c, &id)) != 0) {
        if (id >= 1 && id <= 4 && type == FERRY_COMPACT_I32) {
            if (id == 1) {
                typeAt = c->position;
                d[FERRY_HEADERS_TYPE] = ferry_headers_i32(c);
                seen |= 1;
            }
            else if (id == 2) {
                d[FERRY_HEADERS_UNCOMPRESSED_SIZE] = ferry_headers_count(c);
                seen |= 2;
            }
            else if (id == 3) {
                d[FERRY_HEADERS_COMPRESSED_SIZE] = ferry_headers_count(c);
                seen |= 4;
            }
            else {
                d[FERRY_HEADERS_CRC] = ferry_headers_i32(c);
                d[FERRY_HEADERS_HAS_CRC] = 1;
            }
        }
        else if (id == 5 && type == FERRY_COMPACT_STRUCT) {
            ferry_headers_nested(c, 4, 1, 0, v1);
            structs |= 1;
        }
        else if (id == 7 && type == FERRY_COMPACT_STRUCT) {
            ferry_headers_nested(c, 2, 1, 3, dictionary);
            structs |= 2;
        }
        else if (id == 8 && type == FERRY_COMPACT_STRUCT) {
            ferry_headers_nested(c, 6, 0x37, 7, v2);
            structs |= 4;
        }
        else {
            ferry_headers_skip(c, type);
        }
    }
    if (c->error != 0) {
        return;
    }
    long long end = c->position - 1;
    if (seen != 7) {
        ferry_headers_fail(c, FERRY_HEADERS_MISSING_FIELD, end);
        return;
    }
    long long pageType = d[FERRY_HEADERS_TYPE];
    if (pageType == FERRY_HEADERS_DATA_PAGE) {
        if ((structs & 1) == 0) {
            ferry_headers_fail(c, FERRY_HEADERS_MISSING_FIELD, end);
            return;
        }
        d[FERRY_HEADERS_VALUE_COUNT] = v1[0];
        d[FERRY_HEADERS_ENCODING] = v1[1];
        d[FERRY_HEADERS_DEFINITION_ENCODING] = v1[2];
        d[FERRY_HEADERS_REPETITION_ENCODING] = v1[3];
    }
    else if (pageType == FERRY_HEADERS_DICTIONARY_PAGE) {
        if ((structs & 2) == 0) {
            ferry_headers_fail(c, FERRY_HEADERS_MISSING_FIELD, end);
            return;
        }
        d[FERRY_HEADERS_VALUE_COUNT] = dictionary[0];
        d[FERRY_HEADERS_ENCODING] = dictionary[1];
    }
    else if (pageType == FERRY_HEADERS_DATA_PAGE_V2) {
        if ((structs & 4) == 0) {
            ferry_headers_fail(c, FERRY_HEADERS_MISSING_FIELD, end);
            return;
        }
        d[FERRY_HEADERS_VALUE_COUNT] = v2[0];
        d[FERRY_HEADERS_NULL_COUNT] = v2[1];
        d[FERRY_HEADERS_ROW_COUNT] = v2[2];
        d[FERRY_HEADERS_ENCODING] = v2[3];
        d[FERRY_HEADERS_DEFINITION_LENGTH] = v2[4];
        d[FERRY_HEADERS_REPETITION_LENGTH] = v2[5];
        d[FERRY_HEADERS_IS_COMPRESSED] = v2[6];
    }
    else if (pageType != FERRY_HEADERS_INDEX_PAGE) {
        ferry_headers_fail(c, FERRY_HEADERS_PAGE_TYPE, typeAt);
        return;
    }
    d[FERRY_HEADERS_BODY_OFFSET] = c->position;
    if (d[FERRY_HEADERS_COMPRESSED_SIZE] > c->length - c->position) {
        ferry_headers_fail(c, FERRY_HEADERS_BODY_PAST_END, c->position);
        return;
    }
    c->position += d[FERRY_HEADERS_COMPRESSED_SIZE];
}

// One thread per chunk. chunks[4 * i .. 4 * i + 3] is chunk i's address, byte length, first
// descriptor slot and slot count; its pages (index pages left out) go to
// descriptors[(firstSlot + page) * FERRY_HEADERS_SLOT_FIELDS ...] while slots last, and are counted
// beyond them: status[4 * i .. 4 * i + 3] gets the page count (more than the slots: the host
// relaunches the chunk with that many), the error code (0: none), the chunk offset of the failing
// page's header and that of the value at fault (-1 without an error). The walk ends where the
// chunk's bytes are used exactly. Launch ceil(chunkCount / block) x block.
extern "C" __global__ void ferry_page_headers(
        const long long* chunks,
        int chunkCount,
        long long* descriptors,
        long long* status)
{
    long long index = (long long) blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= chunkCount) {
        return;
    }
    const long long* chunk = chunks + index * 4;
    FerryHeadersCursor c;
    c.data = (const unsigned char*) (unsigned long long) chunk[0];
    c.length = chunk[1];
    c.position = 0;
    c.error = 0;
    c.errorAt = -1;
    long long firstSlot = chunk[2];
    long long slots = chunk[3];
    long long pages = 0;
    long long headerAt = -1;
    while (c.error == 0 && c.position < c.length) {
        long long d[FERRY_HEADERS_SLOT_FIELDS];
        headerAt = c.position;
        ferry_headers_page(&c, d);
        if (c.error != 0 || d[FERRY_HEADERS_TYPE] == FERRY_HEADERS_INDEX_PAGE) {
            continue;
        }
        if (pages < slots) {
            long long* slot = descriptors + (firstSlot + pages) * FERRY_HEADERS_SLOT_FIELDS;
            for (int i = 0; i < FERRY_HEADERS_SLOT_FIELDS; i++) {
                slot[i] = d[i];
            }
        }
        pages++;
    }
    long long* out = status + index * 4;
    out[0] = pages;
    out[1] = c.error;
    out[2] = c.error != 0 ? headerAt : -1;
    out[3] = c.error != 0 ? c.errorAt : -1;
}
