package dev.ferry.device.kernel;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Every kernel source in the jar compiles with nvcc for sm_80 and sm_90 with every warning an
 * error: the same resource files NVRTC compiles at run time, so a kernel with a syntax error
 * cannot land. Skipped (an assumption, with the reason) where nvcc is not on PATH.
 */
public class TestKernelSourcesCompile
{
    private static final List<String> ARCHITECTURES = List.of("sm_80", "sm_90");

    @TempDir
    Path output;

    @Test
    public void everyKernelSourceCompilesWithoutWarnings()
            throws Exception
    {
        Path nvcc = nvcc();
        List<Path> sources = kernelSources();
        assertFalse(sources.isEmpty(), "no .cu resources found under " + KernelSource.RESOURCE_DIRECTORY);
        long began = System.nanoTime();
        for (Path source : sources) {
            for (String architecture : ARCHITECTURES) {
                Result result = compile(nvcc, source, architecture);
                System.out.println("nvcc " + architecture + " " + source.getFileName() + ": exit " + result.exitCode() + (result.output().isEmpty() ? "" : "\n" + result.output()));
                assertEquals(0, result.exitCode(), "nvcc failed on " + source.getFileName() + " for " + architecture + ":\n" + result.output());
                assertFalse(result.output().toLowerCase().contains("warning"), "nvcc warned on " + source.getFileName() + " for " + architecture + ":\n" + result.output());
            }
        }
        System.out.printf("nvcc compiled %d kernel source(s) for %s in %.1f s%n", sources.size(), ARCHITECTURES, (System.nanoTime() - began) / 1e9);
    }

    @Test
    public void aKernelWithASyntaxErrorFails()
            throws Exception
    {
        Path nvcc = nvcc();
        Path broken = output.resolve("broken.cu");
        Files.writeString(broken, "extern \"C\" __global__ void broken(int* out) { out[0] = ; }\n");
        Result result = compile(nvcc, broken, "sm_80");
        assertNotEquals(0, result.exitCode(), "nvcc accepted a syntax error:\n" + result.output());
        Path unused = output.resolve("unused.cu");
        Files.writeString(unused, "extern \"C\" __global__ void unused(int* out) { int never; out[0] = 1; }\n");
        Result warned = compile(nvcc, unused, "sm_80");
        assertNotEquals(0, warned.exitCode(), "an unused variable did not fail under -Werror all-warnings:\n" + warned.output());
    }

    private Result compile(Path nvcc, Path source, String architecture)
            throws IOException, InterruptedException
    {
        Path ptx = output.resolve(source.getFileName() + "." + architecture + ".ptx");
        Process process = new ProcessBuilder(nvcc.toString(), "--ptx", "-arch=" + architecture, "-Werror", "all-warnings", "-o", ptx.toString(), source.toString())
                .redirectErrorStream(true)
                .start();
        process.getOutputStream().close();
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("nvcc did not finish in 120 s on " + source);
        }
        String text = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (process.exitValue() == 0) {
            assertTrue(Files.size(ptx) > 0, "nvcc wrote no PTX for " + source);
        }
        return new Result(process.exitValue(), text);
    }

    private static Path nvcc()
    {
        Optional<Path> nvcc = ExecutableOnPath.find("nvcc");
        assumeTrue(nvcc.isPresent(), "nvcc is not on PATH; kernel sources were not compiled");
        return nvcc.get();
    }

    static List<Path> kernelSources()
            throws IOException, URISyntaxException
    {
        // The main classes' root (target/classes), not the class loader's first match, which is the test classes' package.
        URL root = KernelSource.class.getProtectionDomain().getCodeSource().getLocation();
        Path directory = Path.of(root.toURI()).resolve(KernelSource.RESOURCE_DIRECTORY);
        assertTrue(Files.isDirectory(directory), "kernel resources are not a directory: " + directory);
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(file -> file.getFileName().toString().endsWith(".cu")).sorted().toList();
        }
    }

    private record Result(int exitCode, String output) {}
}
