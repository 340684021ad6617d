package dev.ferry.device.cuda;

import com.sun.nio.file.ExtendedOpenOption;
import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.device.cufile.CuFileVerdicts;
import dev.ferry.device.cufile.RawFileDescriptors;
import dev.ferry.device.cufile.ReadPath;
import dev.ferry.device.cufile.ReadPathVerdict;
import dev.ferry.device.spi.FileReadEngine;
import dev.ferry.device.spi.IoRegistration;
import dev.ferry.topology.model.FilePlacement;
import dev.ferry.topology.probe.mount.FilePlacementProbe;
import dev.ferry.topology.route.RoutePolicy;
import dev.ferry.topology.route.RoutePolicyConfig;
import org.bytedeco.cuda.cufile.CUfileDescr_t;
import org.bytedeco.cuda.cufile.CUfileDrvProps_t;
import org.bytedeco.cuda.cufile.CUfileError_t;
import org.bytedeco.cuda.cufile.CUfileHandle_t;
import org.bytedeco.cuda.global.cufile;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The cuFile driver of one CUDA backend and the per-file path decision, after KvikIO's AUTO mode:
 * <ol>
 * <li>the cuFile library loads and {@code cuFileDriverOpen} succeeds, and {@code /run/udev} is
 * readable (cuFile needs it to find NVMe devices; containers often lack it);</li>
 * <li>the file opens with O_DIRECT, and its raw descriptor can be read;</li>
 * <li>{@code cuFileHandleRegister} accepts it.</li>
 * </ol>
 * Any failure means POSIX reads plus a host-to-device copy, with the reason recorded, logged and
 * counted. A registered file's path is judged per file ({@link CuFileVerdicts}): TRUE_DIRECT when
 * compat mode is disallowed (a non-direct file could not have registered), or when the driver
 * supports NVMe (nvidia-fs or PCI P2PDMA) and the file's own storage allows direct I/O (the route
 * policy's storage checks on its mount and block devices); otherwise COMPAT_MODE, with the reason.
 */
final class CuFileDriver
{
    private static final Logger log = LoggerFactory.getLogger(CuFileDriver.class);
    // The storage half of the gds route rule (filesystem, mount options, block device stack) with its defaults.
    private static final RoutePolicy FILE_POLICY = new RoutePolicy(RoutePolicyConfig.defaults());
    static final AtomicLong POSIX_FALLBACKS = new AtomicLong();

    private final Optional<String> unavailable;
    private final boolean allowCompatMode;
    private final int statusFlags;
    private final int featureFlags;
    private final int maxBatch;

    private CuFileDriver(Optional<String> unavailable, boolean allowCompatMode, int statusFlags, int featureFlags, int maxBatch)
    {
        this.unavailable = unavailable;
        this.allowCompatMode = allowCompatMode;
        this.statusFlags = statusFlags;
        this.featureFlags = featureFlags;
        this.maxBatch = maxBatch;
    }

    private static CuFileDriver shared;

    /**
     * The process's driver, opened on first use and kept open: KvikIO does the same, and cuFile
     * parameters only apply before the first {@code cuFileDriverOpen}, so the first settings win.
     */
    static synchronized CuFileDriver shared(boolean enabled, boolean allowCompatMode)
    {
        if (!enabled) {
            return unavailable("spark.ferry.device.cufile.enabled=false", allowCompatMode);
        }
        if (shared == null) {
            shared = open(allowCompatMode);
        }
        else if (shared.allowCompatMode != allowCompatMode) {
            log.warn("cuFile is already open with allow_compat_mode={}; ignoring {}", shared.allowCompatMode, allowCompatMode);
        }
        return shared;
    }

    private static CuFileDriver open(boolean allowCompatMode)
    {
        if (!Files.isReadable(Paths.get("/run/udev"))) {
            return unavailable("/run/udev is not readable (in a container, mount it with -v /run/udev:/run/udev:ro)", allowCompatMode);
        }
        try {
            // Parameters only take effect before the driver opens.
            CUfileError_t set = cufile.cuFileSetParameterBool(cufile.CUFILE_PARAM_PROPERTIES_ALLOW_COMPAT_MODE, allowCompatMode);
            if (set.err() != cufile.CU_FILE_SUCCESS) {
                log.warn("cuFileSetParameterBool(allow_compat_mode={}) failed: {}", allowCompatMode, describe(set.err()));
            }
            CUfileError_t opened = cufile.cuFileDriverOpen();
            if (opened.err() != cufile.CU_FILE_SUCCESS) {
                return unavailable("cuFileDriverOpen failed: " + describe(opened.err()) + " (cuda error " + opened.cu_err() + ")", allowCompatMode);
            }
            CUfileDrvProps_t properties = new CUfileDrvProps_t();
            CUfileError_t read = cufile.cuFileDriverGetProperties(properties);
            if (read.err() != cufile.CU_FILE_SUCCESS) {
                return unavailable("cuFileDriverGetProperties failed: " + describe(read.err()), allowCompatMode);
            }
            return new CuFileDriver(Optional.empty(), allowCompatMode, properties.nvfs_dstatusflags(), properties.fflags(), Math.max(1, properties.max_batch_io_size()));
        }
        catch (LinkageError e) {
            // libcufile.so.0 missing: UnsatisfiedLinkError now, NoClassDefFoundError on later touches.
            return unavailable("cuFile library unavailable: " + e, allowCompatMode);
        }
    }

    private static CuFileDriver unavailable(String reason, boolean allowCompatMode)
    {
        log.info("cuFile unavailable, device file reads use POSIX: {}", reason);
        return new CuFileDriver(Optional.of(reason), allowCompatMode, 0, 0, 1);
    }

    static String describe(int error)
    {
        BytePointer text = cufile.cufileop_status_error(error);
        return (text == null ? "unknown" : text.getString()) + " (" + error + ")";
    }

    /** NVMe direct support by either kernel stack: nvidia-fs, or the upstream PCI P2PDMA path (no nvidia-fs). */
    CuFileVerdicts.DriverSupport support()
    {
        return new CuFileVerdicts.DriverSupport((statusFlags & (1 << cufile.CU_FILE_NVME_SUPPORTED)) != 0,
                (statusFlags & (1 << cufile.CU_FILE_NVME_P2P_SUPPORTED)) != 0, statusFlags);
    }

    boolean batchSupported()
    {
        return unavailable.isEmpty() && (featureFlags & (1 << cufile.CU_FILE_BATCH_IO_SUPPORTED)) != 0;
    }

    int maxBatch()
    {
        return maxBatch;
    }

    /**
     * Registers a whole pool slab ({@code cuFileBufRegister} of its base and size), once; the pool
     * keeps the registration until the slab is freed, so every buffer carved from it is a
     * registered direct-read target without a registration per buffer.
     */
    IoRegistration registerSlab(Pointer slab, long size, int device)
    {
        if (unavailable.isPresent()) {
            return IoRegistration.none("cuFile unavailable: " + unavailable.get());
        }
        String what = size + "-byte slab at 0x" + Long.toHexString(slab.address()) + " on device " + device;
        CUfileError_t status = cufile.cuFileBufRegister(slab, size, 0);
        if (status.err() != cufile.CU_FILE_SUCCESS) {
            String reason = "cuFileBufRegister of the " + what + " failed: " + describe(status.err()) + "; its reads use cuFile's own bounce buffers";
            log.info(reason);
            return IoRegistration.none(reason);
        }
        return IoRegistration.registered("cuFileBufRegister of the " + what, () -> {
            CUfileError_t undone = cufile.cuFileBufDeregister(slab);
            if (undone.err() != cufile.CU_FILE_SUCCESS) {
                throw new FerryException(ErrorCategory.EXTERNAL, "cuFileBufDeregister of the " + what + " failed: " + describe(undone.err()));
            }
        });
    }

    IoRegistration registerBuffer(CudaMemory memory)
    {
        if (unavailable.isPresent()) {
            return IoRegistration.none("cuFile unavailable: " + unavailable.get());
        }
        if (memory.kind() == CudaMemory.Kind.PINNED) {
            return IoRegistration.none("pinned host memory is read through the buffered descriptor; nothing to register");
        }
        long length = memory.baseOffset() + memory.size();
        CUfileError_t status = cufile.cuFileBufRegister(memory.base(), length, 0);
        if (status.err() != cufile.CU_FILE_SUCCESS) {
            String reason = "cuFileBufRegister of " + memory.describe() + " failed: " + describe(status.err()) + "; reads use cuFile's bounce buffers";
            log.info(reason);
            return IoRegistration.none(reason);
        }
        return IoRegistration.registered("cuFileBufRegister of " + length + " bytes at " + memory.describe(), () -> {
            CUfileError_t undone = cufile.cuFileBufDeregister(memory.base());
            if (undone.err() != cufile.CU_FILE_SUCCESS) {
                throw new FerryException(ErrorCategory.EXTERNAL, "cuFileBufDeregister of " + memory.describe() + " failed: " + describe(undone.err()));
            }
        });
    }

    FileReadEngine openFile(CudaBackend backend, Path path)
    {
        FileChannel buffered;
        try {
            buffered = FileChannel.open(path, StandardOpenOption.READ);
        }
        catch (NoSuchFileException e) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Cannot open file " + path + " for device reads: no such file", e);
        }
        catch (IOException e) {
            throw new FerryException(ErrorCategory.USER_ERROR, "Cannot open file " + path + " for device reads: " + e, e);
        }
        if (unavailable.isPresent()) {
            return posix(backend, path, buffered, unavailable.get());
        }
        FileChannel direct;
        try {
            direct = FileChannel.open(path, StandardOpenOption.READ, ExtendedOpenOption.DIRECT);
        }
        catch (IOException | UnsupportedOperationException e) {
            return posix(backend, path, buffered, "O_DIRECT open refused: " + e);
        }
        int fd;
        try {
            fd = RawFileDescriptors.of(direct);
        }
        catch (IllegalStateException e) {
            closeQuietly(direct);
            return posix(backend, path, buffered, e.getMessage());
        }
        CUfileDescr_t descriptor = new CUfileDescr_t();
        descriptor.type(cufile.CU_FILE_HANDLE_TYPE_OPAQUE_FD);
        descriptor.handle_fd(fd);
        CUfileHandle_t handle = new CUfileHandle_t();
        CUfileError_t registered = cufile.cuFileHandleRegister(handle, descriptor);
        if (registered.err() != cufile.CU_FILE_SUCCESS) {
            closeQuietly(direct);
            return posix(backend, path, buffered, "cuFileHandleRegister failed: " + describe(registered.err()));
        }
        return new CuFileEngine(this, backend, buffered, direct, handle, verdict(path));
    }

    /** This file's path: the driver's support judged against where the file lives (see {@link CuFileVerdicts}). */
    private ReadPathVerdict verdict(Path path)
    {
        Optional<FilePlacement> placement = Optional.empty();
        String unknownWhy = "";
        List<String> obstacles = List.of();
        try {
            placement = Optional.of(FilePlacementProbe.localMachine().locate(path).placement());
            obstacles = FILE_POLICY.storageObstacles(placement.get());
        }
        catch (RuntimeException e) {
            unknownWhy = e.getMessage();
        }
        return CuFileVerdicts.decide(support(), allowCompatMode, placement, obstacles, unknownWhy);
    }

    private static FileReadEngine posix(CudaBackend backend, Path path, FileChannel buffered, String reason)
    {
        POSIX_FALLBACKS.incrementAndGet();
        log.info("Device reads of {} use POSIX: {}", path, reason);
        return new CudaPosixEngine(backend, buffered, new ReadPathVerdict(ReadPath.POSIX, reason));
    }

    static void closeQuietly(FileChannel channel)
    {
        try {
            channel.close();
        }
        catch (IOException e) {
            log.warn("Cannot close {}", channel, e);
        }
    }

    @Override
    public String toString()
    {
        return unavailable.map(reason -> "unavailable (" + reason + ")")
.orElse("open, NVMe direct " + (support().anyNvme() ? "supported through " + support().stack() : "not supported") + ", batch " + (batchSupported() ? "supported" : "not supported")
                        + ", allow_compat_mode=" + allowCompatMode);
    }
}
