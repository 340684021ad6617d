package dev.ferry.device.kernel;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import org.bytedeco.cuda.cudart.CUfunc_st;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.LongPointer;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.javacpp.PointerPointer;

import static java.util.Objects.requireNonNull;

/**
 * One {@code extern "C"} function of a loaded module, launched with the driver API's
 * {@code cuLaunchKernel}. Arguments are Java {@link Integer}s (C {@code int}) and {@link Long}s
 * (device pointers and C {@code long long}), in the kernel's parameter order.
 */
public final class LoadedKernel
{
    private final String name;
    private final CUfunc_st function;

    LoadedKernel(String name, CUfunc_st function)
    {
        this.name = requireNonNull(name, "name is null");
        this.function = requireNonNull(function, "function is null");
    }

    public String name()
    {
        return name;
    }

    /** Launches a one-dimensional grid on the default stream and waits for it, checking both. */
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
            try (PointerPointer<Pointer> parameters = new PointerPointer<>(values)) {
                DriverErrors.check(cudart.cuLaunchKernel(function, gridSize, 1, 1, blockSize, 1, 1, 0, (CUstream_st) null, parameters, (PointerPointer<?>) null),
                        "cuLaunchKernel of kernel " + name);
            }
            // Faults inside the kernel surface at the next synchronizing call; name the kernel there too.
            DriverErrors.check(cudart.cuCtxSynchronize(), "kernel " + name + " (cuCtxSynchronize after launch)");
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
