package dev.ferry.device.contract;

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

/** A child JVM on this test's class path, talked to line by line with timeouts; never left running. */
public final class ChildJvm
        implements AutoCloseable
{
    private static final String END = "\u0000END";

    private final Process process;
    private final Path stderr;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Writer stdin;

    private ChildJvm(Process process, Path stderr)
    {
        this.process = process;
        this.stderr = stderr;
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread reader = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    lines.add(line);
                }
            }
            catch (IOException ignored) {
                // The process went away; END below tells the waiter.
            }
            lines.add(END);
        }, "child-jvm-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    public static ChildJvm start(Class<?> mainClass, String... args)
            throws IOException
    {
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(Arrays.asList(args));
        Path stderr = Files.createTempFile("ferry-child-", ".stderr");
        Process process = new ProcessBuilder(command).redirectError(stderr.toFile()).start();
        return new ChildJvm(process, stderr);
    }

    /** The next stdout line, failing with the child's stderr when it does not come in time. */
    public String nextLine(long timeout, TimeUnit unit)
            throws InterruptedException, IOException
    {
        String line = lines.poll(timeout, unit);
        if (line == null || line.equals(END)) {
            throw new AssertionError((line == null ? "Child JVM sent nothing within " + timeout + " " + unit : "Child JVM ended early")
                    + (process.isAlive() ? "" : " (exit " + process.exitValue() + ")") + "; stderr:\n" + stderrText());
        }
        return line;
    }

    public void send(String line)
            throws IOException
    {
        stdin.write(line + "\n");
        stdin.flush();
    }

    public int waitFor(long timeout, TimeUnit unit)
            throws InterruptedException, IOException
    {
        if (!process.waitFor(timeout, unit)) {
            throw new AssertionError("Child JVM did not exit within " + timeout + " " + unit + "; stderr:\n" + stderrText());
        }
        return process.exitValue();
    }

    public String stderrText()
            throws IOException
    {
        return Files.readString(stderr);
    }

    @Override
    public void close()
            throws IOException
    {
        process.destroyForcibly();
        Files.deleteIfExists(stderr);
    }
}
