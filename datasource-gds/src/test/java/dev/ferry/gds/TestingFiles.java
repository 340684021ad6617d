package dev.ferry.gds;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/** Where the shared Parquet corpus lives: {@code ferry.shared.dir}, else found walking up from the working directory. */
public final class TestingFiles
{
    private TestingFiles() {}

    public static Path parquetTesting()
    {
        String configured = System.getProperty("ferry.shared.dir");
        if (configured != null && Files.isDirectory(Paths.get(configured, "parquet-testing"))) {
            return Paths.get(configured, "parquet-testing").toAbsolutePath().normalize();
        }
        Path directory = Paths.get("").toAbsolutePath();
        while (directory != null) {
            Path candidate = directory.resolve("shared").resolve("parquet-testing");
            if (Files.isDirectory(candidate)) {
                return candidate;
            }
            directory = directory.getParent();
        }
        throw new IllegalStateException("shared/parquet-testing not found: set -Dferry.shared.dir");
    }
}
