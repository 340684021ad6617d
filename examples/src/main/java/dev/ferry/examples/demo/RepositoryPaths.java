package dev.ferry.examples.demo;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Paths the demo names relative to the repository (the default topology, {@code target/ferry-demo}):
 * {@code bin/ferry} may be started from any directory, so a relative path that does not exist from
 * the working directory is taken from the repository this class was built in.
 */
final class RepositoryPaths
{
    private RepositoryPaths() {}

    static Path resolve(Path path)
    {
        if (path.isAbsolute() || Files.exists(path)) {
            return path;
        }
        return root().map(root -> root.resolve(path)).filter(candidate -> Files.exists(candidate) || Files.isDirectory(candidate.getParent())).orElse(path);
    }

    /** examples/target/classes (or a jar under examples/target) -> the repository root, when this runs from a build tree. */
    private static Optional<Path> root()
    {
        try {
            Path classes = Path.of(RepositoryPaths.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path module = classes.getParent() == null ? null : classes.getParent().getParent();
            return Optional.ofNullable(module).map(Path::getParent).filter(root -> Files.isRegularFile(root.resolve("pom.xml")));
        }
        catch (URISyntaxException | RuntimeException e) {
            // Not from a build tree (e.g. a copied jar): paths stay relative to the working directory.
            return Optional.empty();
        }
    }
}
