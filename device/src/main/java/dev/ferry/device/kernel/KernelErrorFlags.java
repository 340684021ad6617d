package dev.ferry.device.kernel;

import java.util.ArrayList;
import java.util.List;

/**
 * The error bits the decode kernels OR into their error word (the {@code FERRY_ERROR_*} defines of
 * {@code parquet_rle.cu}, {@code parquet_scan.cu}, {@code parquet_gather.cu}, {@code parquet_plain.cu}):
 * a kernel that meets bad bytes writes 0 and sets a bit, and the host refuses the page when any is set.
 */
public final class KernelErrorFlags
{
    /** A run, value or length reads past the page's bytes. */
    public static final int OVERRUN = 1;
    /** A definition level above the maximum, a dictionary index past the dictionary, or a value that does not convert. */
    public static final int VALUE_RANGE = 2;
    /** More runs than the run table holds. */
    public static final int RUN_TABLE = 4;
    /** The runs cover fewer values than the page says it has. */
    public static final int SHORT = 8;
    /** A string offset past 2^31 - 1, which an Arrow int32 offset cannot hold. */
    public static final int OFFSET_OVERFLOW = 16;

    private KernelErrorFlags() {}

    /** Words for the bits set in {@code flags}, for an error message. */
    public static String describe(int flags)
    {
        List<String> words = new ArrayList<>();
        if ((flags & OVERRUN) != 0) {
            words.add("reads past the page's bytes");
        }
        if ((flags & VALUE_RANGE) != 0) {
            words.add("a level, dictionary index or value out of range");
        }
        if ((flags & RUN_TABLE) != 0) {
            words.add("more RLE runs than values");
        }
        if ((flags & SHORT) != 0) {
            words.add("fewer values than the page's count");
        }
        if ((flags & OFFSET_OVERFLOW) != 0) {
            words.add("string bytes past 2^31 - 1 (Arrow int32 offsets)");
        }
        int known = OVERRUN | VALUE_RANGE | RUN_TABLE | SHORT | OFFSET_OVERFLOW;
        if ((flags & ~known) != 0) {
            words.add("unknown error bits 0x" + Integer.toHexString(flags & ~known));
        }
        return words.isEmpty() ? "no error" : String.join(", ", words);
    }
}
