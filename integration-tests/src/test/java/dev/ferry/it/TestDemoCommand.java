package dev.ferry.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code bin/ferry demo}'s entry point as a user runs it: a fresh JVM, a small dataset, both shuffles, the summary on stdout. */
class TestDemoCommand
{
    private static final long TIMEOUT_SECONDS = 240;

    private record Run(int exitCode, String stdout, String stderr)
    {
    }

    private static Run demo(Path directory, String... args)
            throws IOException, InterruptedException
    {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add("dev.ferry.examples.demo.DemoCommand");
        command.addAll(List.of(args));
        Path stdout = Files.createTempFile(directory, "stdout", ".txt");
        Path stderr = Files.createTempFile(directory, "stderr", ".txt");
        Process process = new ProcessBuilder(command).directory(directory.toFile())
                .redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
        if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            StandaloneCluster.destroyTree(process.toHandle());
            throw new AssertionError("bin/ferry demo did not finish within " + TIMEOUT_SECONDS + " s; stdout:\n" + Files.readString(stdout, StandardCharsets.UTF_8));
        }
        return new Run(process.exitValue(), Files.readString(stdout, StandardCharsets.UTF_8), Files.readString(stderr, StandardCharsets.UTF_8));
    }

    @Test
    void runsTheEtlJobWithAndWithoutFerryAndFindsTheSameRows(@TempDir Path directory)
            throws IOException, InterruptedException
    {
        Path topology = Path.of("..", "examples", "topologies", "dgx-h100-ib-2node.json").toAbsolutePath().normalize();
        Run run = demo(directory, "--rows", "20000", "--topology", topology.toString(), "--dir", directory.resolve("data").toString());
        assertEquals(0, run.exitCode(), run.stdout() + run.stderr());
        String out = run.stdout();
        assertTrue(out.contains("[1/7] Route decisions"), out);
        assertTrue(out.contains("GPU<->GPU NVLINK x28"), "the topology summary is missing:\n" + out);
        assertTrue(out.contains("dgx-a <-> dgx-b: RDMA"), out);
        assertTrue(out.contains("FerryShuffleExchangeExec"), out);
        assertTrue(out.lines().anyMatch(line -> line.matches("shuffle bytes written\\s+[1-9]\\d*\\s+[1-9]\\d*")), "no bytes written for both shuffles:\n" + out);
        assertTrue(out.lines().anyMatch(line -> line.matches("bytes read via LOCAL\\s+[1-9]\\d*\\s+-")), "no LOCAL route bytes:\n" + out);
        assertTrue(out.contains("Results: identical"), out);
    }

    @Test
    void printsHelpAndRejectsBadArguments(@TempDir Path directory)
            throws IOException, InterruptedException
    {
        Run help = demo(directory, "--help");
        assertEquals(0, help.exitCode(), help.stderr());
        assertTrue(help.stdout().startsWith("usage: bin/ferry demo"), help.stdout());
        Run bad = demo(directory, "--rows", "many");
        assertEquals(2, bad.exitCode());
        assertTrue(bad.stderr().contains("--rows takes a positive number"), bad.stderr());
    }
}
