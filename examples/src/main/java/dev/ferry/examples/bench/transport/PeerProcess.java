package dev.ferry.examples.bench.transport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts {@link DevicePeerProcess} with this JVM's class path and options, reads the port it
 * listens on, and on close ends it (stdin closed, then killed if it has not exited within a few
 * seconds), so it never outlives the benchmark.
 */
final class PeerProcess
        implements AutoCloseable
{
    private final Process process;
    private final int port;

    PeerProcess(int blocks, int blockBytes, Path shm)
            throws IOException
    {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(DevicePeerProcess.class.getName());
        command.add(Integer.toString(blocks));
        command.add(Integer.toString(blockBytes));
        command.add(shm.toString());
        process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line;
        int listening = -1;
        while ((line = out.readLine()) != null) {
            if (line.startsWith("LISTEN ")) {
                listening = Integer.parseInt(line.substring("LISTEN ".length()).trim());
                break;
            }
        }
        if (listening < 0) {
            close();
            throw new IOException("The device peer process exited before listening (exit " + (process.isAlive() ? "none" : process.exitValue()) + ")");
        }
        port = listening;
    }

    int port()
    {
        return port;
    }

    @Override
    public void close()
    {
        try {
            process.getOutputStream().close();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        catch (IOException | InterruptedException e) {
            process.destroyForcibly();
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
