package dev.ferry.gds.decode;

import dev.ferry.common.FerryException;
import dev.ferry.gds.decode.cuda.DeviceBufferKernels;
import dev.ferry.gds.decode.cuda.DeviceKernelsLoader;
import dev.ferry.gds.device.DeviceTarget;
import dev.ferry.gds.device.SimulatedDeviceArrow;
import dev.ferry.gds.io.CompressedPageCapture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Chooses the decode seam's implementation for device batches: on the {@code cuda} backend every
 * column gets the device decoder ({@link CudaColumnChunkDecoder}) over the CPU one, with the kernels
 * built for the target's device memory (loaded into that device's own context, whichever CUDA
 * ordinal it is), or, where they cannot run, the reason each chunk's fallback is counted under. On the simulated backend the device decoder is the CPU decoder writing straight
 * into simulated device memory ({@link SimulatedColumnChunkDecoder}); on the host backend, which has
 * no device memory, the CPU decoder decodes into host memory and uploads.
 */
public final class DeviceDecoders
{
    public static final String CUDA_BACKEND = "cuda";
    private static final Logger log = LoggerFactory.getLogger(DeviceDecoders.class);

    private DeviceDecoders() {}

    /**
     * The shape for device batches on {@code target}. {@code kernels}, when given, builds the kernels
     * whatever the backend (a test runs the emulated kernels on the simulated backend with it).
     * {@code capture}, the reader's codec seam, lets the device decoder take pages compressed;
     * {@code counts} tallies what its chunks uploaded.
     */
    public static FileShape forTarget(FileShape shape, DeviceTarget target, Optional<Function<DeviceTarget, DeviceBufferKernels>> kernels, String file,
            Optional<CompressedPageCapture> capture, DevicePageCounts counts)
    {
        DeviceBufferKernels built = null;
        String unavailable = null;
        if (kernels.isPresent()) {
            built = kernels.get().apply(target);
        }
        else if (CUDA_BACKEND.equals(target.runtime().backendName())) {
            Optional<String> reason = DeviceKernelsLoader.unavailableReason();
            if (reason.isPresent()) {
                unavailable = reason.get();
            }
            else {
                try {
                    built = DeviceKernelsLoader.load(target.runtime().deviceAllocator(target.device()));
                }
                catch (FerryException e) {
                    unavailable = e.getMessage();
                }
            }
            if (unavailable != null) {
                log.warn("{}: the device decoder cannot run, every chunk is decoded on the CPU and uploaded: {}", file, unavailable);
            }
        }
        else if (SimulatedDeviceArrow.isSimulated(target.runtime())) {
            List<ColumnChunkDecoder> columns = new ArrayList<>();
            for (ColumnChunkDecoder column : shape.columns()) {
                columns.add(column instanceof CpuColumnChunkDecoder cpu ? new SimulatedColumnChunkDecoder(cpu, target, capture, file) : column);
            }
            return new FileShape(columns, shape.requestedSchema());
        }
        else {
            // The host backend has no device memory to decode into: the CPU decodes and uploads (counted as host bytes).
            return shape;
        }
        List<ColumnChunkDecoder> columns = new ArrayList<>();
        for (ColumnChunkDecoder column : shape.columns()) {
            if (column instanceof CpuColumnChunkDecoder cpu) {
                columns.add(new CudaColumnChunkDecoder(cpu, built, unavailable, file, capture, counts));
            }
            else {
                columns.add(column);
            }
        }
        return new FileShape(columns, shape.requestedSchema());
    }
}
