package dev.ferry.transport.local;

import dev.ferry.conf.ConfigSource;
import dev.ferry.transport.TransportConfigKeys;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFileAttributes;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Names and directory of HOST_SHM files. Names carry 128 random bits, so another local user
 * cannot guess one, and a handle can only name a file of this exact form inside the directory
 * (no separators, no ".."). They also carry the creating process's pid, so that the files of an
 * executor that died without cleaning up (map outputs live in shared memory for a whole shuffle)
 * can be found and deleted by the next executor of the same user ({@link #sweepOrphans}).
 */
public final class ShmNames
{
    private static final Logger LOG = LoggerFactory.getLogger(ShmNames.class);
    private static final String PREFIX = "ferry-shm-";
    /** File prefix of a writer's reused staging arena ({@code ShmBlockWriter}); its ranges are only read under a lease. */
    static final String ARENA_PREFIX = "ferry-shm-arena";
    /** File prefix of the lease on one range of a staging arena. */
    static final String LEASE_PREFIX = "ferry-shm-lease";
    private static final Pattern NAME = Pattern.compile("ferry-shm-(?:(arena|lease)-)?(?:([0-9]{1,10})-)?[0-9a-f]{32}");
    private static final SecureRandom RANDOM = new SecureRandom();

    private ShmNames() {}

    public static String newName()
    {
        byte[] bits = new byte[16];
        RANDOM.nextBytes(bits);
        return PREFIX + ProcessHandle.current().pid() + "-" + HexFormat.of().formatHex(bits);
    }

    /**
     * Deletes the Ferry shared-memory files in {@code directory} that this user owns and whose
     * creating process is gone; returns how many, and logs them. A live process's files, another
     * user's, and names without a pid are left alone.
     */
    public static int sweepOrphans(Path directory)
    {
        String user = System.getProperty("user.name");
        int deleted = 0;
        long bytes = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, PREFIX + "*")) {
            for (Path file : files) {
                Matcher name = NAME.matcher(file.getFileName().toString());
                if (!name.matches() || name.group(2) == null || ProcessHandle.of(Long.parseLong(name.group(2))).isPresent()) {
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

    /** Whether {@code name} (a checked name) is a staging arena's: a range of it is read only under its lease. */
    static boolean isArena(String name)
    {
        return name.startsWith(ARENA_PREFIX + "-");
    }

    /** The pid of the process that made the file {@code name}, where the name carries one (a checked name); -1 otherwise. */
    static long ownerPid(String name)
    {
        Matcher matcher = NAME.matcher(name);
        return matcher.matches() && matcher.group(2) != null ? Long.parseLong(matcher.group(2)) : -1;
    }

    /** Whether {@code name} (a checked name) is a lease file's. */
    static boolean isLease(String name)
    {
        return name.startsWith(LEASE_PREFIX + "-");
    }

    public static void checkName(String name)
    {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("Not a Ferry shared-memory block name: '" + name + "'");
        }
    }

    /** {@code spark.ferry.transport.shm.dir}, or java.io.tmpdir when it does not exist (as the simulated device backend does). */
    public static Path directory(ConfigSource config)
    {
        Path path = Paths.get(TransportConfigKeys.SHM_DIR.get(config));
        return Files.isDirectory(path) ? path : Paths.get(System.getProperty("java.io.tmpdir"));
    }
}
