package dev.ferry.device.kernel;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import org.bytedeco.cuda.global.nvrtc;
import org.bytedeco.cuda.nvrtc._nvrtcProgram;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.PointerPointer;
import org.bytedeco.javacpp.SizeTPointer;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static java.util.Objects.requireNonNull;

/**
 * Compiles kernel sources to CUBIN with NVRTC for one device architecture ({@code sm_90}),
 * once per process: images are cached by (source SHA-256, architecture). Only reach this class
 * after {@link KernelProbe#availability()} said available. Never yet run on a GPU.
 */
final class KernelCompiler
{
    private static final Map<CacheKey, byte[]> images = new ConcurrentHashMap<>();

    private KernelCompiler() {}

    /** The CUBIN for {@code source} on {@code architecture}; compiled on first use, then cached. */
    static byte[] cubin(KernelSource source, String architecture)
    {
        requireNonNull(source, "source is null");
        requireNonNull(architecture, "architecture is null");
        return images.computeIfAbsent(new CacheKey(source.sha256(), architecture), key -> compile(source, architecture));
    }

    static int cachedImageCount()
    {
        return images.size();
    }

    private static byte[] compile(KernelSource source, String architecture)
    {
        _nvrtcProgram program = new _nvrtcProgram();
        int status = nvrtc.nvrtcCreateProgram(program, new BytePointer(source.text()), new BytePointer(source.name()), 0, (PointerPointer<?>) null, (PointerPointer<?>) null);
        if (status != nvrtc.NVRTC_SUCCESS) {
            throw new FerryException(ErrorCategory.EXTERNAL, "nvrtcCreateProgram for kernel source " + source + " failed: " + DriverErrors.describeNvrtc(status));
        }
        try {
            // --gpu-architecture=sm_XX (not compute_XX) makes NVRTC emit a CUBIN for exactly this device.
            try (PointerPointer<BytePointer> options = new PointerPointer<>("--gpu-architecture=" + architecture, "-default-device")) {
                status = nvrtc.nvrtcCompileProgram(program, 2, options);
            }
            if (status != nvrtc.NVRTC_SUCCESS) {
                throw new FerryException(ErrorCategory.EXTERNAL, "NVRTC could not compile kernel source " + source + " for " + architecture + ": "
                        + DriverErrors.describeNvrtc(status) + "; program log:\n" + log(program));
            }
            try (SizeTPointer size = new SizeTPointer(1)) {
                check(nvrtc.nvrtcGetCUBINSize(program, size), "nvrtcGetCUBINSize", source);
                byte[] image = new byte[Math.toIntExact(size.get())];
                check(nvrtc.nvrtcGetCUBIN(program, image), "nvrtcGetCUBIN", source);
                return image;
            }
        }
        finally {
            nvrtc.nvrtcDestroyProgram(program);
        }
    }

    private static String log(_nvrtcProgram program)
    {
        try (SizeTPointer size = new SizeTPointer(1)) {
            if (nvrtc.nvrtcGetProgramLogSize(program, size) != nvrtc.NVRTC_SUCCESS || size.get() <= 1) {
                return "(empty)";
            }
            byte[] text = new byte[Math.toIntExact(size.get())];
            if (nvrtc.nvrtcGetProgramLog(program, text) != nvrtc.NVRTC_SUCCESS) {
                return "(unreadable)";
            }
            // The log is NUL-terminated.
            return new String(text, 0, text.length - 1, java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    private static void check(int status, String operation, KernelSource source)
    {
        if (status != nvrtc.NVRTC_SUCCESS) {
            throw new FerryException(ErrorCategory.EXTERNAL, operation + " for kernel source " + source + " failed: " + DriverErrors.describeNvrtc(status));
        }
    }

    private record CacheKey(String sourceSha256, String architecture) {}
}
