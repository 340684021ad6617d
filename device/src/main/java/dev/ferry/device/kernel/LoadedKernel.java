package dev.ferry.device.kernel;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import org.bytedeco.cuda.cudart.CUfunc_st;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.LongPointer;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.javacpp.PointerPointer;

import static java.util.Objects.requireNonNull;

/**
 * One {@code extern "C"} function of a module loaded on one device, launched with the driver API's
 * {@code cuLaunchKernel} on that device (made current on the calling thread first) and its kernel
 * stream: a function is only valid in the context its module was loaded into. Arguments are Java
 * {@link Integer}s (C {@code int}) and {@link Long}s
 * (device pointers and C {@code long long}), in the kernel's parameter order.
 */
public final class LoadedKernel
{
    private final String name;
    private final CUfunc_st function;
    private final DeviceKernelContext context;

    LoadedKernel(String name, CUfunc_st function, DeviceKernelContext context)
    {
        this.name = requireNonNull(name, "name is null");
        this.function = requireNonNull(function, "function is null");
        this.context = requireNonNull(context, "context is null");
    }

    /** The CUDA ordinal of the device this function was loaded on, the only one it launches on. */
    public int device()
    {
        return context.device();
    }

    public String name()
    {
        return name;
    }

    /** Makes this kernel's device current, launches a one-dimensional grid on its kernel stream and waits for it, checking both. */
    public void launchAndWait(int gridSize, int blockSize, Object... arguments)
    {
        if (gridSize <= 0 || blockSize <= 0 || blockSize > 1024) {
            throw new FerryException(ErrorCategory.INTERNAL_ERROR, "kernel " + name + ": bad launch shape grid=" + gridSize + " block=" + blockSize);
        }
        Pointer[] values = new Pointer[arguments.length];
        try {
            for (int i = 0; i < arguments.length; i++) {
                if (arguments[i] instanceof Integer value) {
                    values[i] = new IntPointer(1).put(value);
                }
                else if (arguments[i] instanceof Long value) {
                    values[i] = new LongPointer(1).put(value);
                }
                else {
                    throw new FerryException(ErrorCategory.INTERNAL_ERROR, "kernel " + name + ": argument " + i + " is neither Integer nor Long: " + arguments[i]);
                }
            }
            context.makeCurrent();
            try (PointerPointer<Pointer> parameters = new PointerPointer<>(values)) {
                DriverErrors.check(cudart.cuLaunchKernel(function, gridSize, 1, 1, blockSize, 1, 1, 0, context.stream(), parameters, (PointerPointer<?>) null),
                        "cuLaunchKernel of kernel " + name + " on " + context);
            }
            // Faults inside the kernel surface at the next synchronizing call; name the kernel there too.
            DriverErrors.check(cudart.cuStreamSynchronize(context.stream()), "kernel " + name + " on " + context + " (cuStreamSynchronize after launch)");
        }
        finally {
            for (Pointer value : values) {
                if (value != null) {
                    value.close();
                }
            }
        }
    }
}
