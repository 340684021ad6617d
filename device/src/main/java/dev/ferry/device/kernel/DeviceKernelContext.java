package dev.ferry.device.kernel;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import org.bytedeco.cuda.cudart.CUctx_st;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.global.cudart;

/**
 * One device as the kernels see it: its CUDA ordinal, its architecture, its primary context (retained
 * here, so modules loaded into it outlive any runtime call that would let it go) and the stream
 * kernels launch on. {@link #makeCurrent()} makes the device current on the calling thread with
 * {@code cudaSetDevice}, exactly as the cuda backend does before its own work on a device (CudaStream,
 * CudaBackend), so the driver calls that follow (module load, launch, copies) run in the same primary
 * context as the device's memory. The stream is a blocking one ({@code CU_STREAM_DEFAULT}): it waits for
 * work already on the device's legacy default stream, where synchronous {@code cuMemcpy*} copies go.
 * Only built by {@link KernelLauncher}, after the kernel probe said available.
 */
final class DeviceKernelContext
        implements AutoCloseable
{
    private final int device;
    private final int handle;
    private final String architecture;
    private final CUctx_st primary;
    private final CUstream_st stream;
    private boolean closed;

    private DeviceKernelContext(int device, int handle, String architecture, CUctx_st primary, CUstream_st stream)
    {
        this.device = device;
        this.handle = handle;
        this.architecture = architecture;
        this.primary = primary;
        this.stream = stream;
    }

    static DeviceKernelContext open(int device)
    {
        int[] handle = new int[1];
        DriverErrors.check(cudart.cuDeviceGet(handle, device), "cuDeviceGet(" + device + ")");
        String architecture = KernelLauncher.architectureOf(handle[0]);
        CUctx_st primary = new CUctx_st();
        DriverErrors.check(cudart.cuDevicePrimaryCtxRetain(primary, handle[0]), "cuDevicePrimaryCtxRetain(device " + device + ")");
        try {
            makeCurrent(device);
            checkCurrentIs(device, primary);
            CUstream_st stream = new CUstream_st();
            DriverErrors.check(cudart.cuStreamCreate(stream, cudart.CU_STREAM_DEFAULT), "cuStreamCreate on device " + device);
            return new DeviceKernelContext(device, handle[0], architecture, primary, stream);
        }
        catch (RuntimeException e) {
            int released = cudart.cuDevicePrimaryCtxRelease(handle[0]);
            if (released != cudart.CUDA_SUCCESS) {
                e.addSuppressed(new FerryException(ErrorCategory.EXTERNAL, "cuDevicePrimaryCtxRelease(device " + device + ") failed: " + DriverErrors.describe(released)));
            }
            throw e;
        }
    }

    int device()
    {
        return device;
    }

    String architecture()
    {
        return architecture;
    }

    CUstream_st stream()
    {
        return stream;
    }

    /** Makes this device (its primary context) current on the calling thread, as the cuda backend does. */
    void makeCurrent()
    {
        if (closed) {
            throw new FerryException(ErrorCategory.INTERNAL_ERROR, "the kernels of device " + device + " were released; reload them before launching");
        }
        makeCurrent(device);
    }

    /** Makes the device current, then checks the current context is its primary one: where a module is loaded, it must be this device's context. */
    void makeCurrentChecked()
    {
        makeCurrent();
        checkCurrentIs(device, primary);
    }

    private static void makeCurrent(int device)
    {
        DriverErrors.checkRuntime(cudart.cudaSetDevice(device), "cudaSetDevice(" + device + ") before a kernel load or launch");
    }

    private static void checkCurrentIs(int device, CUctx_st primary)
    {
        CUctx_st current = new CUctx_st();
        DriverErrors.check(cudart.cuCtxGetCurrent(current), "cuCtxGetCurrent");
        if (current.address() != primary.address()) {
            throw new FerryException(ErrorCategory.INTERNAL_ERROR, "after cudaSetDevice(" + device + ") the current context is 0x" + Long.toHexString(current.address())
                    + ", not device " + device + "'s primary context 0x" + Long.toHexString(primary.address()) + ": kernels must load into the device's own context");
        }
    }

    /** Destroys the stream and drops this context's hold on the primary context; the caller unloaded the device's modules first. */
    @Override
    public void close()
    {
        if (closed) {
            return;
        }
        closed = true;
        makeCurrent(device);
        int destroyed = cudart.cuStreamDestroy(stream);
        int released = cudart.cuDevicePrimaryCtxRelease(handle);
        DriverErrors.check(destroyed, "cuStreamDestroy of device " + device + "'s kernel stream");
        DriverErrors.check(released, "cuDevicePrimaryCtxRelease(device " + device + ")");
    }

    @Override
    public String toString()
    {
        return "device " + device + " (" + architecture + ")";
    }
}
