package dev.ferry.device.kernel;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The gpu-check stage for the kernels: where NVRTC and a device are available, compiles
 * {@code parquet_levels.cu}, launches both kernels on generated inputs (nulls, every width),
 * copies the results back and compares them byte for byte with {@link ParquetLevelsReference},
 * printing PASS or FAIL per case, and compiles (NVRTC) and loads every function of the device
 * decoder's sources ({@link #DECODE_KERNELS}; the gpu-check stage {@code device-decode} runs them
 * against the CPU decoder); exits 1 on any failure. Where kernels are unavailable it prints
 * "unavailable: reason" and exits 0. Names no JavaCPP class, like {@link KernelProbe}.
 */
public final class KernelCheck
{
    private static final String NATIVE_CHECK = "dev.ferry.device.kernel.KernelCheckNative";

    /** The device Parquet decoder's kernel sources and the functions the decoder launches from each. */
    public static final Map<String, List<String>> DECODE_KERNELS = Map.of(
            "parquet_rle.cu", List.of("ferry_rle_runs", "ferry_rle_expand", "ferry_levels_bitmap"),
            "parquet_scan.cu", List.of("ferry_scan_chunk_sums", "ferry_scan_chunk_starts", "ferry_scan_write"),
            "parquet_gather.cu", List.of("ferry_dict_gather_fixed", "ferry_spaced_fixed", "ferry_spaced_booleans", "ferry_copy_bits", "ferry_string_lengths", "ferry_string_gather"),
            "parquet_plain.cu", List.of("ferry_plain_byte_array_index", "ferry_int96_to_micros", "ferry_timestamp_to_micros", "ferry_decimal_to_128", "ferry_int32_narrow"),
            "parquet_headers.cu", List.of("ferry_page_headers"),
            "parquet_copy.cu", List.of("ferry_copy_ranges"));

    private KernelCheck() {}

    public static void main(String[] args)
            throws ReflectiveOperationException
    {
        KernelAvailability availability = KernelProbe.availability();
        if (!availability.available()) {
            System.out.println("kernel check: unavailable: " + availability.reason());
            return;
        }
        System.out.println("kernel check: " + availability);
        @SuppressWarnings("unchecked")
        Supplier<Integer> check = (Supplier<Integer>) Class.forName(NATIVE_CHECK).getDeclaredConstructor().newInstance();
        int failures = check.get();
        System.out.println("kernel check: " + (failures == 0 ? "all cases PASS" : failures + " case(s) FAILED"));
        if (failures != 0) {
            System.exit(1);
        }
    }
}
