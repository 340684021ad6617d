package dev.ferry.it;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.apache.ivy.core.settings.IvySettings;
import org.apache.spark.util.MavenUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code spark-submit --packages dev.ferry:ferry-spark-plugin:0.1.0-SNAPSHOT} resolved the way spark-submit resolves it
 * (Spark's own {@code MavenUtils}, Ivy), from a Maven-layout repository holding what {@code mvn install} installs:
 * the shaded jar and its published POM. Only that repository is configured (an Ivy settings file, as
 * {@code spark.jars.ivySettings} takes), so nothing can come from the network: the resolved set must be exactly
 * the plugin jar, byte for byte.
 */
class TestPluginPackages
{
    private static final String COORDINATES = "dev.ferry:ferry-spark-plugin:0.1.0-SNAPSHOT";

    @Test
    void packagesResolvesExactlyThePluginJar(@TempDir Path directory)
            throws IOException
    {
        Path version = Files.createDirectories(directory.resolve("repository/dev/ferry/ferry-spark-plugin/0.1.0-SNAPSHOT"));
        Files.copy(PluginJar.jar(), version.resolve("ferry-spark-plugin-0.1.0-SNAPSHOT.jar"));
        Files.copy(PluginJar.publishedPom(), version.resolve("ferry-spark-plugin-0.1.0-SNAPSHOT.pom"));
        Path settings = directory.resolve("ivysettings.xml");
        Files.writeString(settings, String.join("\n",
                "<ivysettings>",
                "  <settings defaultResolver=\"local-repository\"/>",
                "  <resolvers>",
                "    <ibiblio name=\"local-repository\" m2compatible=\"true\" root=\"" + directory.resolve("repository").toUri() + "\"/>",
                "  </resolvers>",
                "</ivysettings>"), StandardCharsets.UTF_8);

        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream printStream = new PrintStream(log, true, StandardCharsets.UTF_8);
        IvySettings ivySettings = MavenUtils.loadIvySettings(settings.toString(), Option.empty(), Option.apply(directory.resolve("ivy").toString()), printStream);
        List<String> resolved = CollectionConverters.asJava(MavenUtils.resolveMavenCoordinates(COORDINATES, ivySettings, Option.empty(), true,
                MavenUtils.resolveMavenCoordinates$default$5(), false, printStream));

        assertEquals(1, resolved.size(), "resolved " + resolved + "; Ivy said:\n" + log.toString(StandardCharsets.UTF_8));
        assertArrayEquals(Files.readAllBytes(PluginJar.jar()), Files.readAllBytes(Path.of(resolved.get(0))), "the resolved jar is not the plugin jar: " + resolved.get(0));
    }
}
