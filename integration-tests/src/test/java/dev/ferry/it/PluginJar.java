package dev.ferry.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The shaded jar users pass to {@code --jars} and its published POM: the path Maven configured
 * ({@code ferry.plugin.jar}), else the plugin module's {@code target/} next to this module. Both are built by
 * the plugin module's {@code package} phase, which runs before this module's tests in a reactor build.
 */
final class PluginJar
{
    private PluginJar() {}

    static Path jar()
    {
        List<Path> candidates = new ArrayList<>();
        Optional.ofNullable(System.getProperty("ferry.plugin.jar")).filter(path -> !path.isEmpty()).map(Path::of).ifPresent(candidates::add);
        candidates.add(Path.of("..", "plugin", "target", "ferry-spark-plugin-0.1.0-SNAPSHOT.jar").toAbsolutePath().normalize());
        for (Path candidate : candidates) {
            if (Files.isRegularFile(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException("The shaded plugin jar is not built (looked at " + candidates + "); run mvn install -DskipTests first");
    }

    /** The POM mvn install publishes with the jar as dev.ferry:ferry-spark-plugin (plugin/src/published, filtered). */
    static Path publishedPom()
    {
        Path pom = jar().resolveSibling("published").resolve("ferry-spark-plugin.pom");
        if (!Files.isRegularFile(pom)) {
            throw new IllegalStateException("The published POM is not built (looked at " + pom + "); run mvn install -DskipTests first");
        }
        return pom;
    }
}
