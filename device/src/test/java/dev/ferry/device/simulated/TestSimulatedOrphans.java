package dev.ferry.device.simulated;

import dev.ferry.conf.MapConfigSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The simulated GPU memory and IPC leases of a process that was killed are deleted by the next simulated backend; a live process's stay. */
class TestSimulatedOrphans
{
    private static final String HEX = "0123456789abcdef0123456789abcdef";

    @TempDir
    Path directory;

    @Test
    void filesOfExitedProcessesAreSweptAtStart()
            throws Exception
    {
        Process exited = new ProcessBuilder("true").start();
        exited.waitFor();
        long live = ProcessHandle.current().pid();
        Path deadGpu = Files.write(directory.resolve("ferry-sim-gpu0-" + exited.pid() + "-" + HEX), new byte[4096]);
        Path deadLease = Files.write(directory.resolve("ferry-ipc-lease-" + exited.pid() + "-" + HEX), new byte[0]);
        Path liveGpu = Files.write(directory.resolve("ferry-sim-gpu1-" + live + "-" + HEX), new byte[10]);
        Path other = Files.write(directory.resolve("not-ferry-" + exited.pid() + "-" + HEX), new byte[10]);
        try (SimulatedBackend backend = new SimulatedBackend(new MapConfigSource(Map.of("spark.ferry.device.simulated.shmDir", directory.toString(),
                "spark.ferry.device.simulated.capacity", "1m")))) {
            assertFalse(Files.exists(deadGpu), "a killed process's simulated GPU memory is deleted");
            assertFalse(Files.exists(deadLease), "and its leases");
            assertTrue(Files.exists(liveGpu), "a live process's files stay");
            assertTrue(Files.exists(other), "other files stay");
        }
    }
}
