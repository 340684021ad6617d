package dev.ferry.gds.decode.cuda;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The decode kernels a test class runs its cases on: the Java emulation always, and the CUDA C
 * sources built for the host by {@code c++} where one is on PATH (said once when not). Built before
 * the class's tests, closed after its {@code @AfterAll} methods:
 * {@code @RegisterExtension static final KernelImplementations KERNELS = new KernelImplementations();}.
 */
final class KernelImplementations
        implements BeforeAllCallback, AfterAllCallback
{
    private final List<DecodeKernels> implementations = new ArrayList<>();
    private Path build;

    @Override
    public void beforeAll(ExtensionContext context)
            throws Exception
    {
        implementations.add(new KernelEmulation());
        build = Files.createTempDirectory("ferry-host-kernels");
        if (HostCompiledKernels.build(build).isPresent()) {
            implementations.add(new HostCompiledKernels(null));
        }
        else {
            System.out.println(context.getDisplayName() + ": no c++ on PATH, the kernels' .cu sources were not run on the host (the emulation only)");
        }
    }

    @Override
    public void afterAll(ExtensionContext context)
            throws IOException
    {
        for (DecodeKernels kernels : implementations) {
            if (kernels instanceof HostCompiledKernels host) {
                host.close();
            }
        }
        implementations.clear();
        if (build != null) {
            try (Stream<Path> paths = Files.walk(build)) {
                for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(path);
                }
            }
        }
    }

    /** The emulation first, then the host-compiled sources where they were built. */
    List<DecodeKernels> all()
    {
        return List.copyOf(implementations);
    }
}
