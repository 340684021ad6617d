package dev.ferry.device.kernel;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** The kernel tests' look-up of a compiler ({@code nvcc}, {@code c++}) on {@code PATH}; a test without it is skipped by its caller. */
final class ExecutableOnPath
{
    private ExecutableOnPath() {}

    /** The first executable file called {@code name} in a {@code PATH} directory, in {@code PATH} order. */
    static Optional<Path> find(String name)
    {
        String path = System.getenv("PATH");
        if (path != null) {
            for (String directory : path.split(File.pathSeparator)) {
                Path candidate = Path.of(directory, name);
                if (Files.isExecutable(candidate)) {
                    return Optional.of(candidate);
                }
            }
        }
        return Optional.empty();
    }
}
