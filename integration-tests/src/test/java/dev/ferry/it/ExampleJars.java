package dev.ferry.it;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/** The two jars a {@code spark-submit} of Ferry's examples needs: the shaded plugin jar and the examples' jar. */
final class ExampleJars
{
    private ExampleJars() {}

    /** A copy of the shaded jar users pass to {@code --jars} ({@link PluginJar#jar()}). */
    static Path pluginJar(Path directory)
            throws IOException
    {
        return copy(PluginJar.jar(), directory.resolve("ferry-spark-plugin.jar"));
    }

    /** The examples' jar from the test class path, or one made from its classes directory (an IDE, a reactor build before packaging). */
    static Path examplesJar(Path directory, String mainClass)
            throws IOException
    {
        String classFile = mainClass.replace('.', '/') + ".class";
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path path = Path.of(entry);
            boolean classes = Files.exists(path.resolve(classFile));
            boolean jar = entry.endsWith(".jar") && path.getFileName().toString().startsWith("ferry-examples");
            if (jar && Files.isRegularFile(path)) {
                return copy(path, directory.resolve("ferry-examples.jar"));
            }
            if (classes) {
                return jar(path, directory.resolve("ferry-examples.jar"));
            }
        }
        throw new IllegalStateException("No ferry-examples jar or classes holding " + mainClass + " on the test class path");
    }

    // A copy: another build may replace the original while the cluster reads it.
    private static Path copy(Path source, Path target)
            throws IOException
    {
        Files.copy(source, target, StandardCopyOption.REPLACE_EXISTING);
        return target;
    }

    private static Path jar(Path classes, Path target)
            throws IOException
    {
        try (OutputStream file = Files.newOutputStream(target);
                JarOutputStream jar = new JarOutputStream(file);
                Stream<Path> paths = Files.walk(classes)) {
            for (Path path : paths.filter(Files::isRegularFile).sorted().toList()) {
                jar.putNextEntry(new JarEntry(classes.relativize(path).toString().replace(File.separatorChar, '/')));
                Files.copy(path, jar);
                jar.closeEntry();
            }
        }
        return target;
    }
}
