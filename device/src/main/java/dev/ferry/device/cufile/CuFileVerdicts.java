package dev.ferry.device.cufile;

import dev.ferry.topology.model.FilePlacement;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The read path of one file cuFile registered, judged per file: the driver's support says whether
 * direct I/O can happen on this node at all, and the file's own storage says whether it happens for
 * this file. A driver that supports NVMe does not make every file direct (a file on overlayfs, NFS
 * or LVM is served in compat mode), and support comes from either kernel stack: {@code nvidia-fs}
 * ({@code CU_FILE_NVME_SUPPORTED}) or the upstream PCI P2PDMA path without nvidia-fs
 * ({@code CU_FILE_NVME_P2P_SUPPORTED}). No JavaCPP here, so it is tested everywhere.
 */
public final class CuFileVerdicts
{
    private CuFileVerdicts() {}

    /**
     * What the cuFile driver reported when it opened.
     *
     * @param nvidiaFsNvme {@code CU_FILE_NVME_SUPPORTED} in {@code nvfs_dstatusflags}
     * @param p2pdmaNvme {@code CU_FILE_NVME_P2P_SUPPORTED} in {@code nvfs_dstatusflags}
     * @param statusFlags the raw flags, for messages
     */
    public record DriverSupport(boolean nvidiaFsNvme, boolean p2pdmaNvme, int statusFlags)
    {
        public boolean anyNvme()
        {
            return nvidiaFsNvme || p2pdmaNvme;
        }

        /** Which kernel stack serves direct reads, for messages. */
        public String stack()
        {
            return nvidiaFsNvme && p2pdmaNvme ? "nvidia-fs and PCI P2PDMA" : nvidiaFsNvme ? "nvidia-fs" : "PCI P2PDMA (no nvidia-fs)";
        }
    }

    /**
     * @param placement where the file lives (mount table and sysfs), or empty with {@code unknownWhy}
     * @param storageObstacles what about that storage rules direct I/O out (the route policy's file rule); empty when nothing
     */
    public static ReadPathVerdict decide(DriverSupport driver, boolean allowCompatMode, Optional<FilePlacement> placement, List<String> storageObstacles, String unknownWhy)
    {
        requireNonNull(driver, "driver is null");
        requireNonNull(placement, "placement is null");
        requireNonNull(storageObstacles, "storageObstacles is null");
        if (!allowCompatMode) {
            return new ReadPathVerdict(ReadPath.TRUE_DIRECT, "cuFile registered the file with allow_compat_mode=false, so its reads cannot fall back inside cuFile");
        }
        if (!driver.anyNvme()) {
            return new ReadPathVerdict(ReadPath.COMPAT_MODE, "the cuFile driver reports neither nvidia-fs nor PCI P2PDMA NVMe support (status flags 0x"
                    + Integer.toHexString(driver.statusFlags()) + "); cuFile serves the file by POSIX read plus a bounce copy");
        }
        if (placement.isEmpty()) {
            return new ReadPathVerdict(ReadPath.COMPAT_MODE, "the driver supports direct NVMe reads (" + driver.stack() + ") but where the file lives is unknown ("
                    + unknownWhy + "), so direct I/O is not claimed");
        }
        FilePlacement where = placement.get();
        if (!storageObstacles.isEmpty()) {
            return new ReadPathVerdict(ReadPath.COMPAT_MODE, "the driver supports direct NVMe reads (" + driver.stack() + ") but not for this file: "
                    + String.join("; ", storageObstacles) + "; cuFile serves it in compat mode");
        }
        return new ReadPathVerdict(ReadPath.TRUE_DIRECT, where.filesystemType() + " on " + where.mountPoint() + " directly on "
                + String.join(" -> ", where.backingDevices()) + where.nvmeController().map(controller -> " (" + controller + ")").orElse("")
                + ", direct NVMe reads through " + driver.stack());
    }
}
