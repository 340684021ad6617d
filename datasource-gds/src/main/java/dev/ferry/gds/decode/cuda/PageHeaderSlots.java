package dev.ferry.gds.decode.cuda;

/**
 * The memory layout and error codes of {@code parquet_headers.cu} (its {@code FERRY_HEADERS_*}
 * defines), shared by its Java twin in {@link KernelEmulation} and by {@link DevicePageHeaders},
 * which reads what the kernel wrote: per chunk an input of {@link #CHUNK_FIELDS} longs (address,
 * length, first slot, slot count), a status of {@link #STATUS_FIELDS} longs (page count, error code,
 * chunk offset of the failing page header, chunk offset of the value at fault), and per page a
 * descriptor slot of {@link #SLOT_FIELDS} longs, -1 where the page type has no such field.
 */
final class PageHeaderSlots
{
    static final int CHUNK_FIELDS = 4;
    static final int STATUS_FIELDS = 4;
    static final int SLOT_FIELDS = 16;
    static final int SLOT_BYTES = SLOT_FIELDS * Long.BYTES;

    static final int TYPE = 0;
    static final int HEADER_OFFSET = 1;
    static final int BODY_OFFSET = 2;
    static final int COMPRESSED_SIZE = 3;
    static final int UNCOMPRESSED_SIZE = 4;
    static final int VALUE_COUNT = 5;
    static final int ENCODING = 6;
    static final int DEFINITION_ENCODING = 7;
    static final int REPETITION_ENCODING = 8;
    static final int DEFINITION_LENGTH = 9;
    static final int REPETITION_LENGTH = 10;
    static final int NULL_COUNT = 11;
    static final int ROW_COUNT = 12;
    static final int IS_COMPRESSED = 13;
    static final int HAS_CRC = 14;
    static final int CRC = 15;

    static final int DATA_PAGE = 0;
    static final int INDEX_PAGE = 1;
    static final int DICTIONARY_PAGE = 2;
    static final int DATA_PAGE_V2 = 3;

    static final int TRUNCATED = 1;
    static final int LONG_VARINT = 2;
    static final int INT_RANGE = 3;
    static final int NEGATIVE = 4;
    static final int BODY_PAST_END = 5;
    static final int TOO_DEEP = 6;
    static final int MISSING_FIELD = 7;
    static final int PAGE_TYPE = 8;
    static final int COMPACT_TYPE = 9;

    /** Containers a skipped Thrift value may nest. */
    static final int MAX_DEPTH = 16;

    /**
     * The fewest bytes a page the walk describes can take: a dictionary page's header with one-byte
     * values (type, both sizes, the nested struct's field header, num_values, encoding, two stops)
     * and an empty body. A chunk of {@code length} bytes needs at most {@code length / 13} slots.
     */
    static final int MIN_DESCRIBED_PAGE_BYTES = 13;

    private PageHeaderSlots() {}

    /** Words for an error code, for the corrupt-file message. */
    static String describe(int code)
    {
        return switch (code) {
            case TRUNCATED -> "the header runs past the column chunk's end";
            case LONG_VARINT -> "a varint longer than 10 bytes";
            case INT_RANGE -> "an i32 or i16 value out of its range";
            case NEGATIVE -> "a negative size, count or length";
            case BODY_PAST_END -> "the page body runs past the column chunk's end";
            case TOO_DEEP -> "Thrift values nested deeper than " + MAX_DEPTH;
            case MISSING_FIELD -> "a required field is missing";
            case PAGE_TYPE -> "an unknown page type";
            case COMPACT_TYPE -> "an unknown Thrift compact type";
            default -> "unknown error code " + code;
        };
    }
}
