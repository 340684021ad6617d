package dev.ferry.device.kernel;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import org.bytedeco.cuda.cudart.CUctx_st;
import org.bytedeco.cuda.cudart.CUfunc_st;
import org.bytedeco.cuda.cudart.CUmod_st;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.javacpp.BytePointer;

import java.util.HashMap;
import java.util.Map;

/**
 * Loads compiled kernels into device 0's primary context with the driver API
 * ({@code cuModuleLoadData}, {@code cuModuleGetFunction}). Only construct after
 * {@link KernelProbe#availability()} said available. Never yet run on a GPU.
 */
public final class KernelLauncher
{
    private static KernelLauncher shared;

    private final int device;
    private final String architecture;
    private final CUctx_st context;
    private final Map<String, CUmod_st> modules = new HashMap<>();
    private final Map<String, LoadedKernel> functions = new HashMap<>();

    public KernelLauncher()
    {
        // Checked before the first cudart call: on a machine without libcuda/libnvrtc a caller that skipped
        // the probe gets the probe's reason, never an UnsatisfiedLinkError from JavaCPP's loader.
        KernelAvailability availability = KernelProbe.availability();
        if (!availability.available()) {
            throw new FerryException(ErrorCategory.EXTERNAL, "CUDA kernels are unavailable: " + availability.reason());
        }
        DriverErrors.check(cudart.cuInit(0), "cuInit");
        int[] handle = new int[1];
        DriverErrors.check(cudart.cuDeviceGet(handle, 0), "cuDeviceGet(0)");
        this.device = handle[0];
        this.architecture = architecture(device);
        CUctx_st context = new CUctx_st();
        DriverErrors.check(cudart.cuDevicePrimaryCtxRetain(context, device), "cuDevicePrimaryCtxRetain");
        this.context = context;
        bindToThisThread();
    }

    /**
     * Makes this launcher's context (device 0's primary context, the one the CUDA runtime uses)
     * current on the calling thread: a context is current per thread, and task threads other than
     * the one that built the launcher launch kernels too.
     */
    public void bindToThisThread()
    {
        DriverErrors.check(cudart.cuCtxSetCurrent(context), "cuCtxSetCurrent");
    }

    /** The device whose primary context the kernels load into (0). */
    public int device()
    {
        return device;
    }

    /** {@code sm_XY} from the device's compute capability, as NVRTC's --gpu-architecture takes it. */
    static String architecture(int device)
    {
        int[] major = new int[1];
        int[] minor = new int[1];
        DriverErrors.check(cudart.cuDeviceGetAttribute(major, cudart.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device), "cuDeviceGetAttribute(compute capability major)");
        DriverErrors.check(cudart.cuDeviceGetAttribute(minor, cudart.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device), "cuDeviceGetAttribute(compute capability minor)");
        return "sm_" + major[0] + minor[0];
    }

    public String architecture()
    {
        return architecture;
    }

    /** Compiles (or takes from the cache) {@code source} for this device and returns its function {@code functionName}. */
    public synchronized LoadedKernel load(KernelSource source, String functionName)
    {
        String key = source.sha256() + "/" + functionName;
        LoadedKernel loaded = functions.get(key);
        if (loaded != null) {
            return loaded;
        }
        CUmod_st module = modules.computeIfAbsent(source.sha256(), sha -> loadModule(source));
        CUfunc_st function = new CUfunc_st();
        int result = cudart.cuModuleGetFunction(function, module, functionName);
        if (result != cudart.CUDA_SUCCESS) {
            throw new FerryException(ErrorCategory.EXTERNAL, "cuModuleGetFunction(" + functionName + ") in kernel source " + source + " failed: " + DriverErrors.describe(result));
        }
        loaded = new LoadedKernel(functionName, function);
        functions.put(key, loaded);
        return loaded;
    }

    // One module per source in this launcher's context: a source's kernels share it, and a second
    // load of the same source neither compiles (KernelCompiler's cache) nor loads it again.
    private CUmod_st loadModule(KernelSource source)
    {
        byte[] image = KernelCompiler.cubin(source, architecture);
        CUmod_st module = new CUmod_st();
        try (BytePointer data = new BytePointer(image)) {
            DriverErrors.check(cudart.cuModuleLoadData(module, data), "cuModuleLoadData of kernel source " + source);
        }
        return module;
    }

    /** The launcher every decoder of this process shares: one context, one module per source. */
    public static synchronized KernelLauncher shared()
    {
        if (shared == null) {
            shared = new KernelLauncher();
        }
        return shared;
    }
}
