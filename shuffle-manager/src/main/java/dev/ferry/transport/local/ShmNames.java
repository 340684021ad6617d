package dev.ferry.transport.local;

import dev.ferry.conf.ConfigSource;
import dev.ferry.transport.TransportConfigKeys;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * Names and directory of HOST_SHM files. Names carry 128 random bits, so another local user
 * cannot guess one, and a handle can only name a file of this exact form inside the directory
 * (no separators, no "..").
 */
public final class ShmNames
{
    private static final String PREFIX = "ferry-shm-";
    private static final Pattern NAME = Pattern.compile("ferry-shm-[0-9a-f]{32}");
    private static final SecureRandom RANDOM = new SecureRandom();

    private ShmNames() {}

    public static String newName()
    {
        byte[] bits = new byte[16];
        RANDOM.nextBytes(bits);
        return PREFIX + HexFormat.of().formatHex(bits);
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
