package dev.ferry.device.ipc;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;

/** Creates the files behind simulated device memory and IPC leases: owner-only, unguessable names. */
public final class SharedMemoryFiles
{
    private static final SecureRandom RANDOM = new SecureRandom();

    private SharedMemoryFiles() {}

    /** {@code preferred} when it is a writable directory (normally /dev/shm), else java.io.tmpdir. */
    public static Path directory(String preferred)
    {
        Path path = Paths.get(preferred);
        if (Files.isDirectory(path) && Files.isWritable(path)) {
            return path;
        }
        return Paths.get(System.getProperty("java.io.tmpdir"));
    }

    /** A new empty file with permissions 0600 and a 128-bit random name, so other users can neither open nor guess it. */
    public static Path create(Path directory, String prefix)
    {
        byte[] secret = new byte[16];
        RANDOM.nextBytes(secret);
        Path path = directory.resolve(prefix + "-" + ProcessHandle.current().pid() + "-" + HexFormat.of().formatHex(secret));
        try {
            return Files.createFile(path, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        }
        catch (IOException | UnsupportedOperationException e) {
            throw new FerryException(ErrorCategory.EXTERNAL, "Cannot create shared-memory file " + path + ": " + e.getMessage(), e);
        }
    }
}
