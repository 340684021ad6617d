package dev.ferry.shuffle.transport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A second executor for cross-process tests: a JVM on this test's class path, driven line by line
 * over stdin/stdout with bounded waits, and killed on close so it never outlives the test.
 */
public final class ChildProcess
        implements AutoCloseable
{
    private static final String EOF_MARK = "\u0000EOF";

    private final Process process;
    private final Path stderr;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Writer stdin;

    private ChildProcess(Process process, Path stderr)
    {
        this.process = process;
        this.stderr = stderr;
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread pump = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    lines.add(line);
                }
            }
            catch (IOException ignored) {
                // The child is gone; EOF_MARK tells the waiter.
            }
            lines.add(EOF_MARK);
        }, "transport-child-stdout");
        pump.setDaemon(true);
        pump.start();
    }

    public static ChildProcess start(Class<?> mainClass, String... args)
            throws IOException
    {
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx128m");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-XX:+UseSerialGC");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(Arrays.asList(args));
        Path stderr = Files.createTempFile("ferry-transport-child-", ".stderr");
        return new ChildProcess(new ProcessBuilder(command).redirectError(stderr.toFile()).start(), stderr);
    }

    /** The next line, or an AssertionError with the child's stderr when none comes within 60 s. */
    public String nextLine()
            throws InterruptedException, IOException
    {
        String line = lines.poll(60, TimeUnit.SECONDS);
        if (line == null || line.equals(EOF_MARK)) {
            throw new AssertionError((line == null ? "Child JVM sent nothing within 60 s" : "Child JVM ended early")
                    + (process.isAlive() ? "" : " (exit " + process.exitValue() + ")") + "; stderr:\n" + Files.readString(stderr));
        }
        return line;
    }

    /** The next line, which must start with {@code prefix}; returns the rest. */
    public String expect(String prefix)
            throws InterruptedException, IOException
    {
        String line = nextLine();
        if (!line.startsWith(prefix)) {
            throw new AssertionError("Expected '" + prefix + "...' from the child, got '" + line + "'; stderr:\n" + Files.readString(stderr));
        }
        return line.substring(prefix.length()).trim();
    }

    public void send(String line)
            throws IOException
    {
        stdin.write(line + "\n");
        stdin.flush();
    }

    public int waitFor()
            throws InterruptedException, IOException
    {
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            throw new AssertionError("Child JVM did not exit within 60 s; stderr:\n" + Files.readString(stderr));
        }
        return process.exitValue();
    }

    @Override
    public void close()
            throws IOException
    {
        process.destroyForcibly();
        Files.deleteIfExists(stderr);
    }
}
