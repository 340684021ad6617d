package dev.ferry.common;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * Ferry's version, from {@code ferry-version.properties}, which Maven fills in when it builds the jar
 * (so a class path assembled by hand, or the shaded plugin jar, still knows it).
 */
public final class FerryVersion
{
    private static final String RESOURCE = "ferry-version.properties";
    private static final String VERSION = load();

    private FerryVersion() {}

    /** e.g. {@code 0.1.0-SNAPSHOT}; {@code unknown} only when the classes run unbuilt (an IDE without resource filtering). */
    public static String version()
    {
        return VERSION;
    }

    private static String load()
    {
        try (InputStream in = FerryVersion.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                return "unknown";
            }
            Properties properties = new Properties();
            properties.load(in);
            String version = properties.getProperty("version", "unknown");
            // An unfiltered copy still holds the placeholder.
            return version.startsWith("${") ? "unknown" : version;
        }
        catch (IOException e) {
            throw new UncheckedIOException("Could not read " + RESOURCE, e);
        }
    }
}
