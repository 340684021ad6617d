package dev.ferry.device.cufile;

import dev.ferry.topology.model.FilePlacement;
import dev.ferry.topology.route.RoutePolicy;
import dev.ferry.topology.route.RoutePolicyConfig;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** cuFile read paths judged per file, with P2PDMA counted as direct support. */
class TestCuFileVerdicts
{
    private static final RoutePolicy POLICY = new RoutePolicy(RoutePolicyConfig.defaults());
    private static final CuFileVerdicts.DriverSupport NVIDIA_FS = new CuFileVerdicts.DriverSupport(true, false, 0x1);
    private static final CuFileVerdicts.DriverSupport P2PDMA = new CuFileVerdicts.DriverSupport(false, true, 0x40);
    private static final CuFileVerdicts.DriverSupport NONE = new CuFileVerdicts.DriverSupport(false, false, 0);

    private static final FilePlacement LOCAL_NVME = new FilePlacement("/raid/part-0.parquet", "/raid", "ext4", List.of("rw", "data=ordered"), List.of("nvme0n1p1"), Optional.of("nvme0"));
    private static final FilePlacement OVERLAY = new FilePlacement("/work/part-0.parquet", "/", "overlay", List.of("rw"), List.of(), Optional.empty());
    private static final FilePlacement LVM = new FilePlacement("/data/part-0.parquet", "/data", "xfs", List.of("rw"), List.of("dm-0", "nvme1n1"), Optional.of("nvme1"));

    private static ReadPathVerdict decide(CuFileVerdicts.DriverSupport driver, boolean compat, FilePlacement placement)
    {
        return CuFileVerdicts.decide(driver, compat, Optional.of(placement), POLICY.storageObstacles(placement), "");
    }

    @Test
    void aFileOnLocalNvmeIsDirectThroughEitherKernelStack()
    {
        ReadPathVerdict nvidiaFs = decide(NVIDIA_FS, true, LOCAL_NVME);
        assertEquals(ReadPath.TRUE_DIRECT, nvidiaFs.path(), nvidiaFs.reason());
        assertTrue(nvidiaFs.reason().contains("nvidia-fs"), nvidiaFs.reason());
        ReadPathVerdict p2p = decide(P2PDMA, true, LOCAL_NVME);
        assertEquals(ReadPath.TRUE_DIRECT, p2p.path(), "P2PDMA without nvidia-fs is direct, not compat: " + p2p.reason());
        assertTrue(p2p.reason().contains("PCI P2PDMA (no nvidia-fs)"), p2p.reason());
    }

    @Test
    void aDriverWithNvmeSupportDoesNotMakeEveryFileDirect()
    {
        ReadPathVerdict overlay = decide(NVIDIA_FS, true, OVERLAY);
        assertEquals(ReadPath.COMPAT_MODE, overlay.path());
        assertTrue(overlay.reason().contains("overlay"), overlay.reason());
        ReadPathVerdict lvm = decide(P2PDMA, true, LVM);
        assertEquals(ReadPath.COMPAT_MODE, lvm.path());
        assertTrue(lvm.reason().contains("dm-0"), lvm.reason());
        assertEquals(ReadPath.COMPAT_MODE, decide(NONE, true, LOCAL_NVME).path(), "no NVMe support in the driver");
        ReadPathVerdict unknown = CuFileVerdicts.decide(NVIDIA_FS, true, Optional.empty(), List.of(), "No mount in /proc/self/mountinfo holds /x");
        assertEquals(ReadPath.COMPAT_MODE, unknown.path());
        assertTrue(unknown.reason().contains("No mount"), unknown.reason());
    }

    @Test
    void withCompatModeOffARegisteredFileIsDirect()
    {
        assertEquals(ReadPath.TRUE_DIRECT, decide(NONE, false, OVERLAY).path(), "registration with allow_compat_mode=false proves direct I/O");
    }
}
