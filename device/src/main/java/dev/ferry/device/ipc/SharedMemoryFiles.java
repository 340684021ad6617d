package dev.ferry.device.ipc;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Creates the files behind simulated device memory and IPC leases: owner-only, unguessable names. */
public final class SharedMemoryFiles
{
    private static final Logger LOG = LoggerFactory.getLogger(SharedMemoryFiles.class);
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

    /**
     * {@code file} (a path that came from a peer, in an IPC handle) if it names a file of this
     * process's kind directly inside {@code directory} ({@code names}), a regular file (not a link)
     * owned by this user and readable by no one else; otherwise a {@link FerryException} saying
     * which check failed. A handle therefore cannot make this process map another file.
     */
    public static Path checkPeerFile(Path directory, String file, Pattern names)
    {
        Path path = Paths.get(file).normalize();
        Path parent = path.getParent();
        String name = path.getFileName() == null ? "" : path.getFileName().toString();
        if (parent == null || !parent.equals(directory.toAbsolutePath().normalize()) || !names.matcher(name).matches()) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Refusing shared-memory file " + file + ": not a Ferry file directly in " + directory);
        }
        PosixFileAttributes attributes;
        try {
            attributes = Files.readAttributes(path, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        }
        catch (NoSuchFileException e) {
            // Gone (its exporter released it): nothing can be mapped; the caller says so in its own terms.
            return path;
        }
        catch (IOException e) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Cannot open shared-memory file " + file + ": " + e, e);
        }
        if (!attributes.isRegularFile()) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Refusing shared-memory file " + file + ": not a regular file");
        }
        if (!attributes.owner().getName().equals(System.getProperty("user.name"))) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Refusing shared-memory file " + file + ": owned by " + attributes.owner().getName() + ", not this user");
        }
        String mode = PosixFilePermissions.toString(attributes.permissions());
        if (!mode.substring(3).equals("------")) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Refusing shared-memory file " + file + ": mode " + mode + " lets other users read or write it");
        }
        return path;
    }

    /**
     * Deletes the files in {@code directory} whose names match {@code names} (a pattern with a group
     * named {@code pid}: the creating process), that this user owns, and whose creating process is
     * gone; returns how many, and logs them. A live process's files, another user's, and names
     * without a pid are left alone. Why: a process killed with its shared memory open (an executor
     * lost mid-shuffle) never deletes its files, and tmpfs keeps their pages until someone does.
     */
    public static int sweepOrphans(Path directory, Pattern names)
    {
        String user = System.getProperty("user.name");
        int deleted = 0;
        long bytes = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory)) {
            for (Path file : files) {
                Matcher name = names.matcher(file.getFileName().toString());
                if (!name.matches() || name.group("pid") == null || ProcessHandle.of(Long.parseLong(name.group("pid"))).isPresent()) {
                    continue;
                }
                try {
                    PosixFileAttributes attributes = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                    if (attributes.isRegularFile() && attributes.owner().getName().equals(user) && Files.deleteIfExists(file)) {
                        deleted++;
                        bytes += attributes.size();
                    }
                }
                catch (IOException e) {
                    LOG.warn("Cannot delete orphaned shared-memory file {}: {}", file, e.toString());
                }
            }
        }
        catch (IOException e) {
            LOG.warn("Cannot look for orphaned shared-memory files in {}: {}", directory, e.toString());
        }
        if (deleted > 0) {
            LOG.info("Deleted {} shared-memory file(s), {} bytes, left in {} by Ferry processes that exited", deleted, bytes, directory);
        }
        return deleted;
    }
}
