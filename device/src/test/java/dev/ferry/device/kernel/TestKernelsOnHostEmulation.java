package dev.ferry.device.kernel;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Runs the kernels' own source, {@code parquet_levels.cu}, on the host: the host C++ compiler
 * builds it with {@code __global__} defined away and {@code blockIdx}/{@code threadIdx}/{@code blockDim}
 * as globals, and a harness calls the kernel once per (block, thread) of the same grid the launcher
 * uses. It checks the kernels' arithmetic against {@link ParquetLevelsReference} on the cases
 * {@link KernelCheck} launches on a GPU; it cannot see races or GPU-only faults (each thread
 * writes disjoint bytes by design). Skipped where no {@code c++} is on PATH.
 */
public class TestKernelsOnHostEmulation
{
    private static final int BLOCK = 256;
    private static final String HARNESS = """
            #include <cstdio>
            #include <cstdlib>
            #include <vector>
            struct FerryDim3 { unsigned int x; unsigned int y; unsigned int z; };
            static FerryDim3 blockIdx;
            static FerryDim3 threadIdx;
            static FerryDim3 blockDim;
            #define __global__
            #include "KERNEL"
            static std::vector<unsigned char> slurp(const char* path)
            {
                std::vector<unsigned char> bytes;
                FILE* file = std::fopen(path, "rb");
                if (file == nullptr) { std::perror(path); std::exit(2); }
                int c;
                while ((c = std::fgetc(file)) != EOF) { bytes.push_back((unsigned char) c); }
                std::fclose(file);
                bytes.push_back(0); // never an empty buffer, as on the device
                return bytes;
            }
            int main(int argc, char** argv)
            {
                if (argc != 9) { return 3; }
                std::vector<unsigned char> a = slurp(argv[2]);
                std::vector<unsigned char> b = slurp(argv[3]);
                std::vector<unsigned char> c = slurp(argv[4]);
                int first = std::atoi(argv[5]);
                int second = std::atoi(argv[6]);
                long long outputBytes = std::atoll(argv[7]);
                // 16-byte aligned copies so the typed loads in the scatter kernel are aligned, as after cuMemAlloc.
                std::vector<unsigned long long> aa(a.size() / 8 + 2), bb(b.size() / 8 + 2), cc(c.size() / 8 + 2), out(outputBytes / 8 + 2, 0xABABABABABABABABull);
                std::copy(a.begin(), a.end(), (unsigned char*) aa.data());
                std::copy(b.begin(), b.end(), (unsigned char*) bb.data());
                std::copy(c.begin(), c.end(), (unsigned char*) cc.data());
                long long items = argv[1][0] == 'l' ? ((long long) second + 7) / 8 : second;
                unsigned int grid = (unsigned int) ((items + BLOCK - 1) / BLOCK);
                blockDim.x = BLOCK;
                for (blockIdx.x = 0; blockIdx.x < grid; blockIdx.x++) {
                    for (threadIdx.x = 0; threadIdx.x < BLOCK; threadIdx.x++) {
                        if (argv[1][0] == 'l') {
                            ferry_levels_to_validity((const int*) aa.data(), (const int*) bb.data(), (const unsigned char*) cc.data(), first, second, (unsigned char*) out.data());
                        }
                        else {
                            ferry_scatter_spaced((const unsigned char*) aa.data(), (const unsigned char*) bb.data(), (const int*) cc.data(), second, first, (unsigned char*) out.data());
                        }
                    }
                }
                FILE* file = std::fopen(argv[8], "wb");
                std::fwrite(out.data(), 1, (size_t) outputBytes, file);
                std::fclose(file);
                return 0;
            }
            """;

    @TempDir
    static Path directory;
    private static Path harness;

    @BeforeAll
    public static void buildHarness()
            throws Exception
    {
        Path compiler = ExecutableOnPath.find("c++").orElse(null);
        assumeTrue(compiler != null, "no c++ on PATH; the kernels were not emulated on the host");
        Path kernel = TestKernelSourcesCompile.kernelSources().stream()
                .filter(path -> path.getFileName().toString().equals("parquet_levels.cu"))
                .findFirst()
                .orElseThrow();
        Path source = directory.resolve("harness.cpp");
        Files.writeString(source, HARNESS.replace("KERNEL", kernel.toString()).replace("BLOCK", Integer.toString(BLOCK)));
        harness = directory.resolve("harness");
        String output = run(List.of(compiler.toString(), "-std=c++17", "-O1", "-Wall", "-Werror", "-Wno-unused-function", "-o", harness.toString(), source.toString()));
        assertEquals("", output, "the host compiler complained about the kernel source");
    }

    @Test
    public void levelsAndScatterMatchTheReferenceOnEveryCase()
            throws Exception
    {
        Random random = new Random(18);
        int checked = 0;
        for (ParquetLevelsCase input : ParquetLevelsCase.all(random)) {
            int valueCount = input.valueCount();
            byte[] expectedBitmap = input.expectedBitmap();
            int[] starts = ParquetLevelsReference.runStarts(input.runLengths());
            byte[] bitmap = emulate("levels", ints(starts), ints(input.runLengths()), input.runLevels(), input.runLengths().length, valueCount, (valueCount + 7) / 8);
            assertArrayEquals(expectedBitmap, bitmap, "levels " + input);
            int[] positions = ParquetLevelsReference.positions(expectedBitmap, valueCount);
            int validCount = positions[valueCount - 1] + (ParquetLevelsReference.isValid(expectedBitmap, valueCount - 1) ? 1 : 0);
            for (int width : ParquetLevelsReference.WIDTHS) {
                byte[] dense = new byte[validCount * width];
                random.nextBytes(dense);
                byte[] spaced = emulate("scatter", dense, expectedBitmap, ints(positions), width, valueCount, (long) valueCount * width);
                assertArrayEquals(ParquetLevelsReference.spaced(dense, expectedBitmap, valueCount, width), spaced, "scatter " + input + " width=" + width);
                checked++;
            }
        }
        assertEquals(ParquetLevelsCase.VALUE_COUNTS.length * ParquetLevelsCase.PATTERNS.length * ParquetLevelsReference.WIDTHS.length, checked);
    }

    private static byte[] emulate(String kernel, byte[] first, byte[] second, byte[] third, int firstInt, int secondInt, long outputBytes)
            throws IOException, InterruptedException
    {
        Path a = write("a", first);
        Path b = write("b", second);
        Path c = write("c", third);
        Path out = directory.resolve("out");
        String output = run(List.of(harness.toString(), kernel, a.toString(), b.toString(), c.toString(), Integer.toString(firstInt), Integer.toString(secondInt), Long.toString(outputBytes), out.toString()));
        assertEquals("", output);
        return Files.readAllBytes(out);
    }

    private static Path write(String name, byte[] bytes)
            throws IOException
    {
        Path path = directory.resolve(name);
        Files.write(path, bytes);
        return path;
    }

    private static byte[] ints(int[] values)
    {
        ByteBuffer buffer = ByteBuffer.allocate(values.length * 4).order(ByteOrder.nativeOrder());
        buffer.asIntBuffer().put(values);
        return buffer.array();
    }

    private static String run(List<String> command)
            throws IOException, InterruptedException
    {
        Process process = new ProcessBuilder(new ArrayList<>(command)).redirectErrorStream(true).start();
        process.getOutputStream().close();
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("did not finish in 120 s: " + command);
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertEquals(0, process.exitValue(), command.get(0) + " failed:\n" + output);
        return output;
    }
}
