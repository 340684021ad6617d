package dev.ferry.examples.demo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.stream.Stream;

/** Sizes on disk and the demo's number formats. */
final class FileSizes
{
    private FileSizes() {}

    /** Bytes of the regular files under {@code directory}. */
    static long of(Path directory)
            throws IOException
    {
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(Files::isRegularFile).mapToLong(file -> {
                try {
                    return Files.size(file);
                }
                catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }).sum();
        }
    }

    static String megabytes(long bytes)
    {
        return String.format(Locale.ROOT, "%.1f MB", bytes / 1e6);
    }

    static String seconds(long millis)
    {
        return String.format(Locale.ROOT, "%.1fs", millis / 1000.0);
    }
}
