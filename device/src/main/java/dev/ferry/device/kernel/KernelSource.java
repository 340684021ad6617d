package dev.ferry.device.kernel;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import static java.util.Objects.requireNonNull;

/**
 * A CUDA C kernel source shipped in the jar under {@code dev/ferry/device/kernel/}, with the
 * SHA-256 of its bytes: the compiled-image cache is keyed by it, so an edited source never
 * reuses a stale image.
 */
public final class KernelSource
{
    public static final String RESOURCE_DIRECTORY = "dev/ferry/device/kernel/";

    private final String name;
    private final String text;
    private final String sha256;

    private KernelSource(String name, byte[] bytes)
    {
        this.name = requireNonNull(name, "name is null");
        this.text = new String(bytes, StandardCharsets.UTF_8);
        this.sha256 = HexFormat.of().formatHex(digest(bytes));
    }

    /** Loads {@code name} (for example {@code parquet_levels.cu}) from the kernel resource directory. */
    public static KernelSource load(String name)
    {
        requireNonNull(name, "name is null");
        String resource = RESOURCE_DIRECTORY + name;
        try (InputStream input = KernelSource.class.getClassLoader().getResourceAsStream(resource)) {
            if (input == null) {
                throw new FerryException(ErrorCategory.INTERNAL_ERROR, "kernel source " + resource + " is not on the class path");
            }
            return new KernelSource(name, input.readAllBytes());
        }
        catch (IOException e) {
            throw new FerryException(ErrorCategory.INTERNAL_ERROR, "cannot read kernel source " + resource + ": " + e.getMessage(), e);
        }
    }

    public String name()
    {
        return name;
    }

    public String text()
    {
        return text;
    }

    public String sha256()
    {
        return sha256;
    }

    private static byte[] digest(byte[] bytes)
    {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        }
        catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    @Override
    public String toString()
    {
        return name + " (sha256 " + sha256.substring(0, 12) + ")";
    }
}
