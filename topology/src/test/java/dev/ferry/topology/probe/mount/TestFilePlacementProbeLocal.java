package dev.ferry.topology.probe.mount;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Locates a real directory of the build machine through its own mount table and sysfs. */
class TestFilePlacementProbeLocal
{
    @Test
    void theWorkingDirectoryIsLocatedOnThisMachine()
    {
        assumeTrue(Files.isReadable(Path.of("/proc/self/mountinfo")), "no procfs");
        Path directory = Path.of("").toAbsolutePath();
        FileLocation location = FilePlacementProbe.localMachine().locate(directory);
        assertTrue(Path.of(location.placement().path()).startsWith(location.placement().mountPoint()), location.toString());
        assertFalse(location.placement().filesystemType().isEmpty());
        assertEquals(location.device().isPresent(), !location.placement().backingDevices().isEmpty());
    }
}
