package dev.ferry.gds.decode.cuda;

import dev.ferry.device.kernel.KernelSource;
import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.gds.device.DeviceTarget;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The decode kernels' own CUDA C sources, built for the host by {@code c++} ({@code __global__} and
 * {@code __device__} defined away, {@code blockIdx}/{@code threadIdx}/{@code blockDim} as globals,
 * {@code atomicOr} a plain or) into a server process that allocates host memory, copies, and runs a
 * kernel by name once per (block, thread) of the grid the CUDA implementation launches. The device
 * decoder runs on it exactly as on {@link CudaDecodeKernels}, so its output checks the .cu sources
 * themselves against the CPU decoder. It cannot see races or GPU-only faults.
 */
public final class HostCompiledKernels
        implements DeviceBufferKernels, AutoCloseable
{
    private static final int BLOCK = 256;
    private static final List<String> SOURCES = List.of("parquet_rle.cu", "parquet_scan.cu", "parquet_gather.cu", "parquet_plain.cu");
    private static final String HARNESS = """
            #include <cstdint>
            #include <cstdio>
            #include <cstdlib>
            #include <cstring>
            #include <string>
            struct FerryDim3 { unsigned int x; unsigned int y; unsigned int z; };
            static FerryDim3 blockIdx;
            static FerryDim3 threadIdx;
            static FerryDim3 blockDim;
            static unsigned int atomicOr(unsigned int* address, unsigned int value) { unsigned int old = *address; *address = old | value; return old; }
            #define __global__
            #define __device__ static
            INCLUDES
            #define P(i, T) ((T) (intptr_t) a[i])
            #define GRID(call) for (blockIdx.x = 0; blockIdx.x < grid; blockIdx.x++) { for (threadIdx.x = 0; threadIdx.x < blockDim.x; threadIdx.x++) { call; } }
            int main()
            {
                char line[4096];
                while (std::fgets(line, sizeof line, stdin) != nullptr) {
                    char op[64];
                    int used = 0;
                    if (std::sscanf(line, "%63s%n", op, &used) != 1) { return 2; }
                    long long a[16] = {0};
                    int n = 0;
                    const char* rest = line + used;
                    int more = 0;
                    char name[128] = {0};
                    if (op[0] == 'K') {
                        if (std::sscanf(rest, "%127s%n", name, &more) != 1) { return 2; }
                        rest += more;
                    }
                    while (n < 16 && std::sscanf(rest, "%lld%n", &a[n], &more) == 1) { rest += more; n++; }
                    if (op[0] == 'A') {
                        size_t bytes = (size_t) ((a[0] + 255) / 256 * 256);
                        void* memory = std::aligned_alloc(256, bytes);
                        std::memset(memory, 0xA5, bytes);
                        std::printf("%lld\\n", (long long) (intptr_t) memory);
                    }
                    else if (op[0] == 'F') { std::free((void*) (intptr_t) a[0]); std::printf("ok\\n"); }
                    else if (op[0] == 'U') {
                        if (a[1] > 0 && std::fread((void*) (intptr_t) a[0], 1, (size_t) a[1], stdin) != (size_t) a[1]) { return 3; }
                        std::printf("ok\\n");
                    }
                    else if (op[0] == 'D') { std::fwrite((void*) (intptr_t) a[0], 1, (size_t) a[1], stdout); }
                    else if (op[0] == 'C') { std::memmove((void*) (intptr_t) a[1], (void*) (intptr_t) a[0], (size_t) a[2]); std::printf("ok\\n"); }
                    else if (op[0] == 'K') {
                        unsigned int grid = (unsigned int) a[0];
                        blockDim.x = (unsigned int) a[1];
                        long long* k = a + 2;
                        std::string kernel(name);
                        #define A(i, T) ((T) (intptr_t) k[i])
                        if (kernel == "ferry_rle_runs") GRID(ferry_rle_runs(A(0, const unsigned char*), k[1], (int) k[2], (int) k[3], (int) k[4], A(5, int*), A(6, int*), A(7, int*), A(8, long long*), A(9, int*), A(10, unsigned int*)))
                        else if (kernel == "ferry_rle_expand") GRID(ferry_rle_expand(A(0, const unsigned char*), k[1], (int) k[2], A(3, const int*), A(4, const int*), A(5, const int*), A(6, const long long*), A(7, const int*), (int) k[8], k[9], A(10, unsigned int*), A(11, unsigned int*)))
                        else if (kernel == "ferry_levels_bitmap") GRID(ferry_levels_bitmap(A(0, const unsigned int*), (int) k[1], (unsigned int) k[2], A(3, unsigned char*)))
                        else if (kernel == "ferry_scan_chunk_sums") GRID(ferry_scan_chunk_sums(A(0, const unsigned int*), (int) k[1], (int) k[2], (int) k[3], (unsigned int) k[4], A(5, unsigned long long*)))
                        else if (kernel == "ferry_scan_chunk_starts") GRID(ferry_scan_chunk_starts(A(0, unsigned long long*), (int) k[1]))
                        else if (kernel == "ferry_scan_write") GRID(ferry_scan_write(A(0, const unsigned int*), (int) k[1], (int) k[2], (int) k[3], (unsigned int) k[4], A(5, const unsigned long long*), A(6, int*), A(7, unsigned int*)))
                        else if (kernel == "ferry_dict_gather_fixed") GRID(ferry_dict_gather_fixed(A(0, const unsigned char*), (int) k[1], (int) k[2], A(3, const unsigned int*), A(4, const unsigned char*), A(5, const int*), (int) k[6], A(7, unsigned char*), A(8, unsigned int*)))
                        else if (kernel == "ferry_spaced_fixed") GRID(ferry_spaced_fixed(A(0, const unsigned char*), k[1], (int) k[2], A(3, const unsigned char*), A(4, const int*), (int) k[5], A(6, unsigned char*), A(7, unsigned int*)))
                        else if (kernel == "ferry_spaced_booleans") GRID(ferry_spaced_booleans(A(0, const unsigned char*), k[1], k[2], A(3, const unsigned char*), A(4, const int*), (int) k[5], A(6, unsigned char*), A(7, unsigned int*)))
                        else if (kernel == "ferry_copy_bits") GRID(ferry_copy_bits(A(0, const unsigned char*), k[1], A(2, unsigned char*), k[3]))
                        else if (kernel == "ferry_string_lengths") GRID(ferry_string_lengths((int) k[0], A(1, const unsigned int*), (int) k[2], A(3, const unsigned int*), A(4, const unsigned char*), A(5, const int*), (int) k[6], A(7, unsigned int*), A(8, unsigned int*)))
                        else if (kernel == "ferry_string_gather") GRID(ferry_string_gather((int) k[0], A(1, const unsigned char*), A(2, const long long*), A(3, const unsigned int*), (int) k[4], A(5, const unsigned int*), A(6, const unsigned char*), A(7, const int*), (int) k[8], A(9, const int*), A(10, unsigned char*)))
                        else if (kernel == "ferry_plain_byte_array_index") GRID(ferry_plain_byte_array_index(A(0, const unsigned char*), k[1], (int) k[2], k[3], A(4, long long*), A(5, unsigned int*), A(6, unsigned int*)))
                        else if (kernel == "ferry_int96_to_micros") GRID(ferry_int96_to_micros(A(0, const unsigned char*), (int) k[1], A(2, long long*)))
                        else if (kernel == "ferry_decimal_to_128") GRID(ferry_decimal_to_128(A(0, const unsigned char*), (int) k[1], (int) k[2], (int) k[3], A(4, unsigned char*), A(5, unsigned int*)))
                        else if (kernel == "ferry_timestamp_to_micros") GRID(ferry_timestamp_to_micros(A(0, const long long*), (int) k[1], (int) k[2], (int) k[3], A(4, long long*), A(5, unsigned int*)))
                        else { std::fprintf(stderr, "unknown kernel %s\\n", name); return 4; }
                        std::printf("ok\\n");
                    }
                    else { return 5; }
                    std::fflush(stdout);
                }
                return 0;
            }
            """;

    private static Path binary;

    private final DeviceTarget target;
    private final Process process;
    private final OutputStream commands;
    private final DataInputStream replies;
    private final Map<Long, Long> sizes = new HashMap<>();

    /** Builds the server once; empty when no {@code c++} is on PATH. */
    public static synchronized java.util.Optional<Path> build(Path directory)
            throws IOException, InterruptedException, URISyntaxException
    {
        // Another test class's build may sit in a temporary directory JUnit has removed since.
        if (binary != null && Files.isExecutable(binary)) {
            return java.util.Optional.of(binary);
        }
        Path compiler = onPath("c++");
        if (compiler == null) {
            return java.util.Optional.empty();
        }
        StringBuilder includes = new StringBuilder();
        Path kernels = Path.of(KernelSource.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        for (String source : SOURCES) {
            Path file = Files.isDirectory(kernels) ? kernels.resolve(KernelSource.RESOURCE_DIRECTORY + source) : null;
            if (file == null || !Files.exists(file)) {
                // The device module as a jar: copy the sources out.
                file = directory.resolve(source);
                Files.writeString(file, KernelSource.load(source).text());
            }
            includes.append("#include \"").append(file).append("\"\n");
        }
        Path source = directory.resolve("host_kernels.cpp");
        Files.writeString(source, HARNESS.replace("INCLUDES", includes));
        Path built = directory.resolve("host_kernels");
        Process compile = new ProcessBuilder(compiler.toString(), "-std=c++17", "-O1", "-Wall", "-Werror", "-Wno-unused-function", "-o", built.toString(),
                source.toString()).redirectErrorStream(true).start();
        compile.getOutputStream().close();
        String output = new String(compile.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!compile.waitFor(180, TimeUnit.SECONDS) || compile.exitValue() != 0) {
            throw new IllegalStateException("c++ could not build the host kernels:\n" + output);
        }
        binary = built;
        return java.util.Optional.of(binary);
    }

    public HostCompiledKernels(DeviceTarget target)
    {
        this.target = target;
        if (binary == null || !Files.isExecutable(binary)) {
            throw new IllegalStateException("build() first");
        }
        try {
            process = new ProcessBuilder(binary.toString()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        commands = new BufferedOutputStream(process.getOutputStream(), 1 << 16);
        replies = new DataInputStream(new BufferedInputStream(process.getInputStream(), 1 << 16));
    }

    private String command(String line, byte[] payload, int offset, int length)
    {
        try {
            commands.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
            if (payload != null) {
                commands.write(payload, offset, length);
            }
            commands.flush();
            return readLine();
        }
        catch (IOException e) {
            throw new UncheckedIOException("host kernels: " + line, e);
        }
    }

    private String readLine()
            throws IOException
    {
        StringBuilder text = new StringBuilder();
        int c;
        while ((c = replies.read()) != '\n') {
            if (c < 0) {
                throw new IOException("the host kernel process ended (exit " + (process.isAlive() ? "?" : process.exitValue()) + ")");
            }
            text.append((char) c);
        }
        return text.toString();
    }

    @Override
    public long allocate(long bytes)
    {
        long address = Long.parseLong(command("A " + Math.max(8, bytes), null, 0, 0));
        sizes.put(address, Math.max(8, bytes));
        return address;
    }

    @Override
    public void free(long address)
    {
        sizes.remove(address);
        command("F " + address, null, 0, 0);
    }

    /** Bytes still allocated in the server (a leak check). */
    public long allocatedBytes()
    {
        return sizes.values().stream().mapToLong(Long::longValue).sum();
    }

    @Override
    public void upload(byte[] source, int offset, int length, long target)
    {
        command("U " + target + " " + length, source, offset, length);
    }

    @Override
    public void download(long source, byte[] target, int offset, int length)
    {
        try {
            commands.write(("D " + source + " " + length + "\n").getBytes(StandardCharsets.US_ASCII));
            commands.flush();
            replies.readFully(target, offset, length);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void copy(long source, long target, long length)
    {
        command("C " + source + " " + target + " " + length, null, 0, 0);
    }

    @Override
    public String describe()
    {
        return "the kernels' CUDA C sources compiled for the host";
    }

    @Override
    public DeviceBuffer handOver(long address)
    {
        int size = Math.toIntExact(sizes.get(address));
        byte[] bytes = new byte[size];
        download(address, bytes, 0, size);
        free(address);
        DeviceBuffer buffer = target.runtime().deviceAllocator(target.device()).allocate(size);
        target.stream().copyFromHost(ByteBuffer.wrap(bytes), buffer, 0);
        return buffer;
    }

    private void launch(String kernel, long items, Object... arguments)
    {
        if (items <= 0) {
            return;
        }
        launchGrid(kernel, (items + BLOCK - 1) / BLOCK, BLOCK, arguments);
    }

    private void launchGrid(String kernel, long grid, int block, Object... arguments)
    {
        List<String> parts = new ArrayList<>(List.of("K", kernel, Long.toString(grid), Integer.toString(block)));
        for (Object argument : arguments) {
            parts.add(argument.toString());
        }
        String reply = command(String.join(" ", parts), null, 0, 0);
        if (!reply.equals("ok")) {
            throw new IllegalStateException(kernel + ": " + reply);
        }
    }

    @Override
    public void rleRuns(long data, long byteCount, int bitWidth, int valueCount, int maxRuns, long runStarts, long runLengths, long runKinds, long runOffsets,
            long runCount, long errors)
    {
        launchGrid("ferry_rle_runs", 1, 1, data, byteCount, bitWidth, valueCount, maxRuns, runStarts, runLengths, runKinds, runOffsets, runCount, errors);
    }

    @Override
    public void rleExpand(long data, long byteCount, int bitWidth, long runStarts, long runLengths, long runKinds, long runOffsets, long runCount, int valueCount,
            long maxValue, long out, long errors)
    {
        launch("ferry_rle_expand", valueCount, data, byteCount, bitWidth, runStarts, runLengths, runKinds, runOffsets, runCount, valueCount, maxValue, out, errors);
    }

    @Override
    public void levelsBitmap(long levels, int valueCount, int maxDefinition, long bitmap)
    {
        launch("ferry_levels_bitmap", ((long) valueCount + 7) / 8, levels, valueCount, maxDefinition, bitmap);
    }

    @Override
    public void scanChunkSums(long values, int valueCount, int chunk, int flagsOnly, int match, long sums)
    {
        launch("ferry_scan_chunk_sums", ((long) valueCount + chunk - 1) / chunk, values, valueCount, chunk, flagsOnly, match, sums);
    }

    @Override
    public void scanChunkStarts(long sums, int chunkCount)
    {
        launchGrid("ferry_scan_chunk_starts", 1, 1, sums, chunkCount);
    }

    @Override
    public void scanWrite(long values, int valueCount, int chunk, int flagsOnly, int match, long starts, long out, long errors)
    {
        launch("ferry_scan_write", ((long) valueCount + chunk - 1) / chunk, values, valueCount, chunk, flagsOnly, match, starts, out, errors);
    }

    @Override
    public void dictGatherFixed(long dictionary, int dictionarySize, int width, long indices, long bitmap, long positions, int valueCount, long out, long errors)
    {
        launch("ferry_dict_gather_fixed", valueCount, dictionary, dictionarySize, width, indices, bitmap, positions, valueCount, out, errors);
    }

    @Override
    public void spacedFixed(long dense, long denseCount, int width, long bitmap, long positions, int valueCount, long out, long errors)
    {
        launch("ferry_spaced_fixed", valueCount, dense, denseCount, width, bitmap, positions, valueCount, out, errors);
    }

    @Override
    public void spacedBooleans(long dense, long denseCount, long slotBase, long bitmap, long positions, int valueCount, long out, long errors)
    {
        launch("ferry_spaced_booleans", ((long) valueCount + 7) / 8, dense, denseCount, slotBase, bitmap, positions, valueCount, out, errors);
    }

    @Override
    public void copyBits(long source, long bitCount, long target, long targetBitOffset)
    {
        if (bitCount <= 0) {
            return;
        }
        launch("ferry_copy_bits", ((targetBitOffset + bitCount - 1) >> 3) - (targetBitOffset >> 3) + 1, source, bitCount, target, targetBitOffset);
    }

    @Override
    public void stringLengths(int dictionary, long entryLengths, int entryCount, long indices, long bitmap, long positions, int valueCount, long lengths, long errors)
    {
        launch("ferry_string_lengths", valueCount, dictionary, entryLengths, entryCount, indices, bitmap, positions, valueCount, lengths, errors);
    }

    @Override
    public void stringGather(int dictionary, long entryBytes, long entryStarts, long entryLengths, int entryCount, long indices, long bitmap, long positions,
            int valueCount, long offsets, long data)
    {
        launch("ferry_string_gather", valueCount, dictionary, entryBytes, entryStarts, entryLengths, entryCount, indices, bitmap, positions, valueCount, offsets, data);
    }

    @Override
    public void plainByteArrayIndex(long data, long byteCount, int entryCount, long startBase, long entryStarts, long entryLengths, long errors)
    {
        launchGrid("ferry_plain_byte_array_index", 1, 1, data, byteCount, entryCount, startBase, entryStarts, entryLengths, errors);
    }

    @Override
    public void int96ToMicros(long in, int count, long out)
    {
        launch("ferry_int96_to_micros", count, in, count, out);
    }

    @Override
    public void decimalTo128(long in, int count, int inWidth, int bigEndian, long out, long errors)
    {
        launch("ferry_decimal_to_128", count, in, count, inWidth, bigEndian, out, errors);
    }

    @Override
    public void timestampToMicros(long in, int count, int multiply, int divide, long out, long errors)
    {
        launch("ferry_timestamp_to_micros", count, in, count, multiply, divide, out, errors);
    }

    @Override
    public void close()
    {
        try {
            commands.close();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
        catch (IOException | InterruptedException e) {
            process.destroyForcibly();
        }
    }

    private static Path onPath(String name)
    {
        String path = System.getenv("PATH");
        if (path != null) {
            for (String entry : path.split(File.pathSeparator)) {
                Path candidate = Path.of(entry, name);
                if (Files.isExecutable(candidate)) {
                    return candidate;
                }
            }
        }
        return null;
    }
}
