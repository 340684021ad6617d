package dev.ferry.device.kernel;

import org.bytedeco.cuda.global.cudart;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.IntPointer;

import java.util.Arrays;
import java.util.Random;
import java.util.function.Supplier;

/** The device side of {@link KernelCheck}; reached only by reflection after the probe said available. */
final class KernelCheckNative
        implements Supplier<Integer>
{
    private static final int BLOCK = 256;
    // The check's own allocations (cuMemAlloc) go to the current context, which loading the kernels made device 0's.
    private static final int DEVICE = 0;

    @Override
    public Integer get()
    {
        try (KernelLauncher launcher = new KernelLauncher()) {
            return check(launcher);
        }
    }

    private static int check(KernelLauncher launcher)
    {
        KernelSource source = KernelSource.load("parquet_levels.cu");
        LoadedKernel levels = launcher.load(DEVICE, source, "ferry_levels_to_validity");
        LoadedKernel scatter = launcher.load(DEVICE, source, "ferry_scatter_spaced");
        System.out.println("kernel check: " + source + " compiled for " + launcher.architecture(DEVICE) + " on device " + DEVICE);
        int failures = 0;
        for (java.util.Map.Entry<String, java.util.List<String>> entry : new java.util.TreeMap<>(KernelCheck.DECODE_KERNELS).entrySet()) {
            try {
                KernelSource decode = KernelSource.load(entry.getKey());
                for (String function : entry.getValue()) {
                    launcher.load(DEVICE, decode, function);
                }
                System.out.println("PASS NVRTC compiled and loaded " + decode + ": " + entry.getValue());
            }
            catch (RuntimeException e) {
                System.out.println("FAIL " + entry.getKey() + ": " + e.getMessage());
                failures++;
            }
        }
        Random random = new Random(18);
        for (ParquetLevelsCase input : ParquetLevelsCase.all(random)) {
            int valueCount = input.valueCount();
            byte[] expectedBitmap = input.expectedBitmap();
            byte[] bitmap = runLevels(levels, input.runLengths(), input.runLevels(), valueCount);
            failures += report("levels " + input, expectedBitmap, bitmap);
            int[] positions = ParquetLevelsReference.positions(expectedBitmap, valueCount);
            int validCount = positions[valueCount - 1] + (ParquetLevelsReference.isValid(expectedBitmap, valueCount - 1) ? 1 : 0);
            for (int width : ParquetLevelsReference.WIDTHS) {
                byte[] dense = new byte[validCount * width];
                random.nextBytes(dense);
                byte[] expected = ParquetLevelsReference.spaced(dense, expectedBitmap, valueCount, width);
                byte[] actual = runScatter(scatter, dense, expectedBitmap, positions, valueCount, width);
                failures += report("scatter " + input + " width=" + width, expected, actual);
            }
        }
        return failures;
    }

    private static byte[] runLevels(LoadedKernel kernel, int[] lengths, byte[] runLevels, int valueCount)
    {
        int[] starts = ParquetLevelsReference.runStarts(lengths);
        int byteCount = (valueCount + 7) / 8;
        long startsOnDevice = upload(new IntPointer(starts), 4L * starts.length);
        long lengthsOnDevice = upload(new IntPointer(lengths), 4L * lengths.length);
        long levelsOnDevice = upload(new BytePointer(runLevels), runLevels.length);
        long bitmapOnDevice = allocate(byteCount);
        try {
            kernel.launchAndWait((byteCount + BLOCK - 1) / BLOCK, BLOCK, startsOnDevice, lengthsOnDevice, levelsOnDevice, lengths.length, valueCount, bitmapOnDevice);
            return download(bitmapOnDevice, byteCount);
        }
        finally {
            free(startsOnDevice, lengthsOnDevice, levelsOnDevice, bitmapOnDevice);
        }
    }

    private static byte[] runScatter(LoadedKernel kernel, byte[] dense, byte[] bitmap, int[] positions, int valueCount, int width)
    {
        long denseOnDevice = upload(new BytePointer(dense), dense.length);
        long bitmapOnDevice = upload(new BytePointer(bitmap), bitmap.length);
        long positionsOnDevice = upload(new IntPointer(positions), 4L * positions.length);
        long spacedOnDevice = allocate((long) valueCount * width);
        try {
            kernel.launchAndWait((valueCount + BLOCK - 1) / BLOCK, BLOCK, denseOnDevice, bitmapOnDevice, positionsOnDevice, valueCount, width, spacedOnDevice);
            return download(spacedOnDevice, (long) valueCount * width);
        }
        finally {
            free(denseOnDevice, bitmapOnDevice, positionsOnDevice, spacedOnDevice);
        }
    }

    private static int report(String name, byte[] expected, byte[] actual)
    {
        if (Arrays.equals(expected, actual)) {
            System.out.println("PASS " + name);
            return 0;
        }
        int first = Arrays.mismatch(expected, actual);
        System.out.println("FAIL " + name + ": first MISMATCH at byte " + first + " of " + expected.length);
        return 1;
    }

    // cuMemAlloc rejects size 0; an empty buffer still gets one byte so every argument is a real pointer.
    private static long allocate(long bytes)
    {
        long[] address = new long[1];
        DriverErrors.check(cudart.cuMemAlloc(address, Math.max(bytes, 1)), "cuMemAlloc(" + bytes + ")");
        return address[0];
    }

    private static long upload(org.bytedeco.javacpp.Pointer host, long bytes)
    {
        try (host) {
            long address = allocate(bytes);
            if (bytes > 0) {
                DriverErrors.check(cudart.cuMemcpyHtoD(address, host, bytes), "cuMemcpyHtoD(" + bytes + ")");
            }
            return address;
        }
    }

    private static byte[] download(long address, long bytes)
    {
        try (BytePointer host = new BytePointer(Math.max(bytes, 1))) {
            if (bytes > 0) {
                DriverErrors.check(cudart.cuMemcpyDtoH(host, address, bytes), "cuMemcpyDtoH(" + bytes + ")");
            }
            byte[] result = new byte[Math.toIntExact(bytes)];
            host.get(result);
            return result;
        }
    }

    private static void free(long... addresses)
    {
        for (long address : addresses) {
            cudart.cuMemFree(address);
        }
    }
}
