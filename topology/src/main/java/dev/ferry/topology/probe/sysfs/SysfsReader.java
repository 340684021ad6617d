package dev.ferry.topology.probe.sysfs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.ToIntFunction;

import static java.util.Objects.requireNonNull;

/**
 * Reads attribute files below a sysfs root. The root is configurable so tests can point the probes at
 * fixture trees; on a live machine it is {@code /sys}.
 * <p>
 * Every read is tolerant: sysfs attributes come and go with kernel versions and drivers, and some
 * exist but fail to read (a down link's {@code speed} answers {@code EINVAL}). A missing or unreadable
 * attribute is an empty value, never an exception; callers decide what absence means.
 */
public final class SysfsReader
{
    private final Path root;

    public SysfsReader(Path root)
    {
        this.root = requireNonNull(root, "root is null");
    }

    public Path root()
    {
        return root;
    }

    /** Resolves {@code relative} (e.g. {@code "bus/pci/devices"}) against the root. */
    public Path path(String relative)
    {
        return root.resolve(relative);
    }

    /** The trimmed content of a file, empty when it is missing, unreadable or blank. */
    public static Optional<String> read(Path file)
    {
        try {
            String text = Files.readString(file, StandardCharsets.UTF_8).trim();
            return text.isEmpty() ? Optional.empty() : Optional.of(text);
        }
        catch (IOException e) {
            return Optional.empty();
        }
    }

    /** A decimal integer attribute such as {@code numa_node} or {@code max_link_width}. */
    public static OptionalInt readInt(Path file)
    {
        return readParsed(file, Integer::parseInt);
    }

    /** A hexadecimal attribute such as {@code class} ({@code 0x030200}) or {@code vendor}. */
    public static OptionalInt readHex(Path file)
    {
        return readParsed(file, text -> Integer.parseUnsignedInt(text.startsWith("0x") || text.startsWith("0X") ? text.substring(2) : text, 16));
    }

    private static OptionalInt readParsed(Path file, ToIntFunction<String> parser)
    {
        Optional<String> text = read(file);
        if (text.isEmpty()) {
            return OptionalInt.empty();
        }
        try {
            return OptionalInt.of(parser.applyAsInt(text.get()));
        }
        catch (NumberFormatException e) {
            return OptionalInt.empty();
        }
    }

    /** The fully resolved path (all symlinks followed), empty when it does not exist. */
    public static Optional<Path> realPath(Path path)
    {
        try {
            return Optional.of(path.toRealPath());
        }
        catch (IOException | SecurityException e) {
            return Optional.empty();
        }
    }

    /** Entry names of a directory, sorted; empty when it is missing or unreadable. */
    public static List<String> list(Path directory)
    {
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory)) {
            for (Path entry : entries) {
                names.add(entry.getFileName().toString());
            }
        }
        catch (IOException | DirectoryIteratorException e) {
            // A directory that vanishes while listed (hot-unplug) reads as empty
            return List.of();
        }
        Collections.sort(names);
        return List.copyOf(names);
    }

    /** Whether the path exists (following symlinks). */
    public static boolean exists(Path path)
    {
        return Files.exists(path);
    }
}
