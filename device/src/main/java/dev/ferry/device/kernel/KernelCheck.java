package dev.ferry.device.kernel;

import java.util.function.Supplier;

/**
 * The gpu-check stage for the kernels: where NVRTC and a device are available, compiles
 * {@code parquet_levels.cu}, launches both kernels on generated inputs (nulls, every width),
 * copies the results back and compares them byte for byte with {@link ParquetLevelsReference},
 * printing PASS or FAIL per case; exits 1 on any failure. Where kernels are unavailable it prints
 * "unavailable: reason" and exits 0. Names no JavaCPP class, like {@link KernelProbe}.
 */
public final class KernelCheck
{
    private static final String NATIVE_CHECK = "dev.ferry.device.kernel.KernelCheckNative";

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
