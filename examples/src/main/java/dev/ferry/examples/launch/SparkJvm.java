package dev.ferry.examples.launch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.apache.spark.launcher.JavaModuleOptions;

/**
 * Spark on Java 17 needs JDK internals opened, which {@code spark-submit} does with
 * {@link JavaModuleOptions}. Ferry's command-line entry points are started by {@code bin/ferry}
 * with a plain {@code java}, so each checks once and reruns itself in a child JVM with those
 * options when they are missing.
 */
public final class SparkJvm
{
    private static final String CHILD_MARKER = "ferry.spark.jvm.child";

    private SparkJvm() {}

    /** Whether the running JVM already has the module options Spark needs. */
    public static boolean modulesOpen()
    {
        Module unnamed = SparkJvm.class.getModule();
        Module base = Object.class.getModule();
        return base.isOpen("java.nio", unnamed) && base.isOpen("sun.nio.ch", unnamed)
                && base.isOpen("java.lang", unnamed) && base.isOpen("java.util", unnamed);
    }

    /**
     * Reruns {@code main} with Spark's module options when this JVM lacks them, and returns the
     * child's exit code; returns -1 when this JVM can run Spark itself.
     */
    public static int relaunchIfNeeded(Class<?> main, String[] args)
            throws IOException, InterruptedException
    {
        if (modulesOpen() || System.getProperty(CHILD_MARKER) != null) {
            return -1;
        }
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of(JavaModuleOptions.defaultModuleOptionArray()));
        String heap = System.getenv("FERRY_HEAP");
        if (heap != null && !heap.isBlank()) {
            command.add("-Xmx" + heap.trim());
        }
        command.add("-D" + CHILD_MARKER + "=true");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
        if (System.getenv("SPARK_HOME") == null) {
            // local-cluster workers put executor directories under SPARK_HOME/work (else ./work):
            // keep them out of the user's directory.
            builder.environment().put("SPARK_HOME", Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir"), "ferry-spark-home")).toString());
        }
        return builder.start().waitFor();
    }
}
