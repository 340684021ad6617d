package dev.ferry.shuffle.transport.shm;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.ferry.conf.ConfigSource;
import dev.ferry.device.ipc.SharedMemoryFiles;
import dev.ferry.shuffle.transport.TransportConfigKeys;

/**
 * Names and directory of HOST_SHM files. Names carry 128 random bits, so another local user
 * cannot guess one, and a handle can only name a file of this exact form inside the directory
 * (no separators, no ".."). They also carry the creating process's pid, so that the files of an
 * executor that died without cleaning up (map outputs live in shared memory for a whole shuffle)
 * can be found and deleted by the next executor of the same user ({@link #sweepOrphans}).
 */
public final class ShmNames
{
    private static final String PREFIX = "ferry-shm-";
    /** File prefix of a writer's reused staging arena ({@code ShmBlockWriter}); its ranges are only read under a lease. */
    static final String ARENA_PREFIX = "ferry-shm-arena";
    /** File prefix of the lease on one range of a staging arena. */
    static final String LEASE_PREFIX = "ferry-shm-lease";
    private static final Pattern NAME = Pattern.compile("ferry-shm-(?:(arena|lease)-)?(?:(?<pid>[0-9]{1,10})-)?[0-9a-f]{32}");
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
        return SharedMemoryFiles.sweepOrphans(directory, NAME);
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
        return matcher.matches() && matcher.group("pid") != null ? Long.parseLong(matcher.group("pid")) : -1;
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
