package dev.ferry.topology.probe.nvml;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

class TestNvmlLoader
{
    @Test
    void aMissingImplementationIsAReasonNotAnException()
    {
        NvmlLoader loader = new NvmlLoader("dev.ferry.topology.probe.nvml.NoSuchLibrary");
        NvmlAvailability verdict = loader.load();
        assertFalse(verdict.isAvailable());
        assertTrue(verdict.reason().startsWith("ClassNotFoundException: dev.ferry.topology.probe.nvml.NoSuchLibrary"), verdict.reason());
        assertSame(verdict, loader.load(), "the verdict is cached");
    }

    @Test
    void aNativeLoadFailureIsCaughtOnceAndCached()
    {
        NativeLoadFailure.OPENS.set(0);
        NvmlLoader loader = new NvmlLoader(NativeLoadFailure.class.getName());
        NvmlAvailability verdict = loader.load();
        assertFalse(verdict.isAvailable());
        assertTrue(verdict.reason().startsWith("UnsatisfiedLinkError: no jninvml"), verdict.reason());
        assertFalse(verdict.reason().contains("/usr/lib"), "the library path list is dropped: " + verdict.reason());
        assertTrue(verdict.reason().contains("libnvidia-ml.so.1"), verdict.reason());
        loader.load();
        assertEquals(1, NativeLoadFailure.OPENS.get(), "a failed native load is not retried");

        NvmlProbeResult result = NvmlProbe.probe(loader);
        assertFalse(result.report().ran());
        assertTrue(result.report().detail().startsWith("NVML unavailable: UnsatisfiedLinkError"), result.report().detail());
    }

    @Test
    void anNvmlInitErrorIsTheReason()
    {
        NvmlAvailability verdict = new NvmlLoader(DriverNotLoaded.class.getName()).load();
        assertEquals("nvmlInit_v2 failed: Driver Not Loaded (9)", verdict.reason());
    }

    @Test
    void aWorkingImplementationIsReturned()
    {
        NvmlAvailability verdict = new NvmlLoader(Working.class.getName()).load();
        assertTrue(verdict.isAvailable());
        assertEquals(2, verdict.library().orElseThrow().deviceCount());
    }

    @Test
    void theRealNvmlOnAMachineWithoutTheDriverReportsUnavailable()
    {
        assumeFalse(Files.exists(Path.of("/sys/module/nvidia")), "this machine has the NVIDIA driver");
        NvmlProbeResult result = NvmlProbe.probe(NvmlLoader.system());
        assertFalse(result.report().ran());
        assertTrue(result.snapshot().isEmpty());
        assertTrue(result.report().detail().startsWith("NVML unavailable: "), result.report().detail());
        // Asking again gives the same answer without touching the native code again
        assertEquals(result.report(), NvmlProbe.probe(NvmlLoader.system()).report());
    }

    public static final class NativeLoadFailure
    {
        static final AtomicInteger OPENS = new AtomicInteger();

        public static NvmlLibrary open()
        {
            OPENS.incrementAndGet();
            throw new UnsatisfiedLinkError("no jninvml in java.library.path: /usr/java/packages/lib:/usr/lib64:/lib64:/lib:/usr/lib");
        }
    }

    public static final class DriverNotLoaded
    {
        public static NvmlLibrary open()
        {
            throw new NvmlCallException("nvmlInit_v2", 9, "Driver Not Loaded");
        }
    }

    public static final class Working
    {
        public static NvmlLibrary open()
        {
            return TestingNvmlLibrary.workstationWithoutP2p();
        }
    }
}
