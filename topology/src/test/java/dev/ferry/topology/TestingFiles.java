package dev.ferry.topology;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** Finds the shared captures and the repository's example topologies from tests. */
public final class TestingFiles
{
    private TestingFiles() {}

    /** {@code <shared>/topology/nvidia-smi}, from {@code ferry.shared.dir} or by walking up to a sibling {@code shared/topology}. */
    public static Path capturesDirectory()
    {
        String property = System.getProperty("ferry.shared.dir");
        if (property != null && Files.isDirectory(Path.of(property, "topology", "nvidia-smi"))) {
            return Path.of(property, "topology", "nvidia-smi").toAbsolutePath().normalize();
        }
        for (Path directory = Path.of("").toAbsolutePath(); directory != null; directory = directory.getParent()) {
            Path candidate = directory.resolveSibling("shared").resolve("topology").resolve("nvidia-smi");
            if (Files.isDirectory(candidate)) {
                return candidate.normalize();
            }
            Path inside = directory.resolve("shared").resolve("topology").resolve("nvidia-smi");
            if (Files.isDirectory(inside)) {
                return inside.normalize();
            }
        }
        throw new IllegalStateException("Cannot find shared/topology/nvidia-smi: set -Dferry.shared.dir");
    }

    public static List<Path> captures()
    {
        List<Path> captures = list(capturesDirectory(), ".txt");
        if (captures.isEmpty()) {
            throw new IllegalStateException("No captures in " + capturesDirectory());
        }
        return captures;
    }

    public static Path capture(String fileName)
    {
        return capturesDirectory().resolve(fileName);
    }

    /** {@code <repo>/examples/topologies}. */
    public static Path examplesDirectory()
    {
        String property = System.getProperty("ferry.repo.dir");
        if (property != null && Files.isDirectory(Path.of(property, "examples", "topologies"))) {
            return Path.of(property, "examples", "topologies").toAbsolutePath().normalize();
        }
        for (Path directory = Path.of("").toAbsolutePath(); directory != null; directory = directory.getParent()) {
            Path candidate = directory.resolve("examples").resolve("topologies");
            if (Files.isDirectory(candidate)) {
                return candidate.normalize();
            }
        }
        throw new IllegalStateException("Cannot find examples/topologies: set -Dferry.repo.dir");
    }

    public static List<Path> exampleTopologies()
    {
        return list(examplesDirectory(), ".json");
    }

    public static String read(Path file)
    {
        try {
            return Files.readString(file);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<Path> list(Path directory, String suffix)
    {
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(file -> file.getFileName().toString().endsWith(suffix)).sorted().toList();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
