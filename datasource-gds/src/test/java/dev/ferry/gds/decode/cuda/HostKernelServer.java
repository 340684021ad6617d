package dev.ferry.gds.decode.cuda;

import dev.ferry.device.kernel.KernelSource;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Kernel CUDA C sources built for the host by {@code c++} ({@code __global__} and {@code __device__}
 * defined away, {@code blockIdx}/{@code threadIdx}/{@code blockDim} as globals, atomics as plain
 * read-modify-writes) into a server process that allocates host memory, copies, and runs a kernel by
 * name once per (block, thread) of a grid. Each user names its sources and its dispatch lines (one
 * {@code if (kernel == "name") GRID(call)} per kernel, arguments {@code k[i]}, pointers
 * {@code A(i, T)}). It cannot see races or GPU-only faults.
 */
public final class HostKernelServer
        implements AutoCloseable
{
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
            static unsigned int atomicAdd(unsigned int* address, unsigned int value) { unsigned int old = *address; *address = old + value; return old; }
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
                        DISPATCH
                        else { std::fprintf(stderr, "unknown kernel %s\\n", name); return 4; }
                        std::printf("ok\\n");
                    }
                    else { return 5; }
                    std::fflush(stdout);
                }
                return 0;
            }
            """;

    private static final Map<String, Path> binaries = new HashMap<>();

    private final Process process;
    private final OutputStream commands;
    private final DataInputStream replies;
    private final Map<Long, Long> sizes = new HashMap<>();

    /** Builds server {@code name} once per JVM from {@code sources} (kernel resources); empty when no {@code c++} is on PATH. */
    public static synchronized Optional<Path> build(Path directory, String name, List<String> sources, String dispatch)
            throws IOException, InterruptedException, URISyntaxException
    {
        // Another test class's build may sit in a temporary directory JUnit has removed since.
        Path built = binaries.get(name);
        if (built != null && Files.isExecutable(built)) {
            return Optional.of(built);
        }
        Path compiler = onPath("c++");
        if (compiler == null) {
            return Optional.empty();
        }
        StringBuilder includes = new StringBuilder();
        Path kernels = Path.of(KernelSource.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        for (String source : sources) {
            Path file = Files.isDirectory(kernels) ? kernels.resolve(KernelSource.RESOURCE_DIRECTORY + source) : null;
            if (file == null || !Files.exists(file)) {
                // The device module as a jar: copy the sources out.
                file = directory.resolve(source);
                Files.writeString(file, KernelSource.load(source).text());
            }
            includes.append("#include \"").append(file).append("\"\n");
        }
        Path source = directory.resolve(name + ".cpp");
        Files.writeString(source, HARNESS.replace("INCLUDES", includes).replace("DISPATCH", dispatch));
        built = directory.resolve(name);
        Process compile = new ProcessBuilder(compiler.toString(), "-std=c++17", "-O1", "-Wall", "-Werror", "-Wno-unused-function", "-o", built.toString(),
                source.toString()).redirectErrorStream(true).start();
        compile.getOutputStream().close();
        String output = new String(compile.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!compile.waitFor(180, TimeUnit.SECONDS) || compile.exitValue() != 0) {
            throw new IllegalStateException("c++ could not build the host kernels " + name + ":\n" + output);
        }
        binaries.put(name, built);
        return Optional.of(built);
    }

    /** Starts a server built by {@link #build} under {@code name}. */
    public HostKernelServer(String name)
    {
        Path binary = binaries.get(name);
        if (binary == null || !Files.isExecutable(binary)) {
            throw new IllegalStateException("build() " + name + " first");
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

    public long allocate(long bytes)
    {
        long address = Long.parseLong(command("A " + Math.max(8, bytes), null, 0, 0));
        sizes.put(address, Math.max(8, bytes));
        return address;
    }

    /** The size {@link #allocate} gave the allocation at {@code address}. */
    public long sizeOf(long address)
    {
        return sizes.get(address);
    }

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

    public void upload(byte[] source, int offset, int length, long target)
    {
        command("U " + target + " " + length, source, offset, length);
    }

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

    public void copy(long source, long target, long length)
    {
        command("C " + source + " " + target + " " + length, null, 0, 0);
    }

    /** Runs {@code kernel} once per (block, thread) of a {@code grid} x {@code block} grid; arguments as decimal integers. */
    public void launchGrid(String kernel, long grid, int block, Object... arguments)
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
