package dev.ferry.device.kernel;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import org.bytedeco.cuda.cudart.CUfunc_st;
import org.bytedeco.cuda.cudart.CUmod_st;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.javacpp.BytePointer;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Loads compiled kernels with the driver API ({@code cuModuleLoadData}, {@code cuModuleGetFunction})
 * into the primary context of whichever device asks: the GPU Spark assigned an executor need not be
 * device 0. Modules and functions are cached per (device, source[, function]) by a
 * {@link DeviceModuleCache}, so each device compiles nothing twice (KernelCompiler's cache, per
 * architecture) and loads each source once, and a function loaded on one device is never launched
 * on another ({@link LoadedKernel} makes its own device current). Only construct after
 * {@link KernelProbe#availability()} said available.
 */
public final class KernelLauncher
        implements AutoCloseable
{
    private static KernelLauncher shared;

    private final Map<Integer, DeviceKernelContext> contexts = new HashMap<>();
    private final DeviceModuleCache<CUmod_st, LoadedKernel> cache = new DeviceModuleCache<>(new DriverModules());

    public KernelLauncher()
    {
        // Checked before the first cudart call: on a machine without libcuda/libnvrtc a caller that skipped
        // the probe gets the probe's reason, never an UnsatisfiedLinkError from JavaCPP's loader.
        KernelAvailability availability = KernelProbe.availability();
        if (!availability.available()) {
            throw new FerryException(ErrorCategory.EXTERNAL, "CUDA kernels are unavailable: " + availability.reason());
        }
        DriverErrors.check(cudart.cuInit(0), "cuInit");
    }

    /**
     * Makes {@code device} current on the calling thread (cudaSetDevice, as the cuda backend does), for
     * driver calls a kernel user makes between launches (copies); a context is current per thread.
     */
    public synchronized void makeCurrent(int device)
    {
        context(device).makeCurrent();
    }

    /** {@code sm_XY} of {@code device}, the architecture its kernels are compiled for. */
    public synchronized String architecture(int device)
    {
        return context(device).architecture();
    }

    /** {@code sm_XY} from the device's compute capability, as NVRTC's --gpu-architecture takes it. */
    static String architectureOf(int deviceHandle)
    {
        int[] major = new int[1];
        int[] minor = new int[1];
        DriverErrors.check(cudart.cuDeviceGetAttribute(major, cudart.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, deviceHandle), "cuDeviceGetAttribute(compute capability major)");
        DriverErrors.check(cudart.cuDeviceGetAttribute(minor, cudart.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, deviceHandle), "cuDeviceGetAttribute(compute capability minor)");
        return "sm_" + major[0] + minor[0];
    }

    /** Compiles (or takes from the cache) {@code source} for {@code device} and returns its function {@code functionName} there. */
    public synchronized LoadedKernel load(int device, KernelSource source, String functionName)
    {
        context(device);
        return cache.function(device, source, functionName);
    }

    /** How many kernel modules are loaded on {@code device}. */
    public synchronized int moduleCount(int device)
    {
        return cache.moduleCount(device);
    }

    /** Unloads {@code device}'s modules, destroys its kernel stream and drops the hold on its primary context; a later load starts again. */
    public synchronized void release(int device)
    {
        DeviceKernelContext context = contexts.remove(device);
        try {
            cache.release(device);
        }
        finally {
            if (context != null) {
                context.close();
            }
        }
    }

    /** Releases every device this launcher loaded kernels on. */
    @Override
    public synchronized void close()
    {
        List<RuntimeException> failures = new ArrayList<>();
        for (int device : List.copyOf(contexts.keySet())) {
            try {
                release(device);
            }
            catch (RuntimeException e) {
                failures.add(e);
            }
        }
        if (!failures.isEmpty()) {
            failures.subList(1, failures.size()).forEach(failures.get(0)::addSuppressed);
            throw failures.get(0);
        }
    }

    private DeviceKernelContext context(int device)
    {
        if (device < 0) {
            throw new IllegalArgumentException("device must be a CUDA ordinal (>= 0), got " + device);
        }
        return contexts.computeIfAbsent(device, DeviceKernelContext::open);
    }

    // The driver API side of the cache: every call first makes the named device current, so a module
    // goes into, is looked up in and is unloaded from that device's primary context only.
    private final class DriverModules
            implements DeviceModuleCache.Loader<CUmod_st, LoadedKernel>
    {
        @Override
        public CUmod_st loadModule(int device, KernelSource source)
        {
            DeviceKernelContext context = context(device);
            byte[] image = KernelCompiler.cubin(source, context.architecture());
            context.makeCurrentChecked();
            CUmod_st module = new CUmod_st();
            try (BytePointer data = new BytePointer(image)) {
                DriverErrors.check(cudart.cuModuleLoadData(module, data), "cuModuleLoadData of kernel source " + source + " on " + context);
            }
            return module;
        }

        @Override
        public LoadedKernel function(int device, CUmod_st module, String functionName)
        {
            DeviceKernelContext context = context(device);
            context.makeCurrent();
            CUfunc_st function = new CUfunc_st();
            int result = cudart.cuModuleGetFunction(function, module, functionName);
            if (result != cudart.CUDA_SUCCESS) {
                throw new FerryException(ErrorCategory.EXTERNAL, "cuModuleGetFunction(" + functionName + ") on " + context + " failed: " + DriverErrors.describe(result));
            }
            return new LoadedKernel(functionName, function, context);
        }

        @Override
        public void unloadModule(int device, CUmod_st module)
        {
            DriverErrors.checkRuntime(cudart.cudaSetDevice(device), "cudaSetDevice(" + device + ") before cuModuleUnload");
            DriverErrors.check(cudart.cuModuleUnload(module), "cuModuleUnload on device " + device);
        }
    }

    /** The launcher every kernel user of this process shares: one primary context per device, one module per (device, source). */
    public static synchronized KernelLauncher shared()
    {
        if (shared == null) {
            shared = new KernelLauncher();
        }
        return shared;
    }
}
