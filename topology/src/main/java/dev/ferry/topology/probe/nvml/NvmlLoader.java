package dev.ferry.topology.probe.nvml;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

import static java.util.Objects.requireNonNull;

/**
 * Opens NVML once per loader and remembers the verdict, success or the reason for failure.
 * <p>
 * The JavaCPP bindings are loaded by name, through reflection, so that no class of
 * {@code org.bytedeco} is touched before this succeeds: on a machine without the driver, the first
 * touch throws {@link UnsatisfiedLinkError} ({@code libnvidia-ml.so.1} or the JNI wrapper's
 * dependencies missing) and every later touch {@link NoClassDefFoundError}. Both are caught here —
 * the one place Ferry catches {@link Throwable} without rethrowing, because a failed native load means
 * "NVML unavailable", not a bug. Retrying would only repeat the error, hence the cache.
 */
public final class NvmlLoader
{
    private static final String JAVACPP_IMPLEMENTATION = "dev.ferry.topology.probe.nvml.JavaCppNvmlLibrary";
    private static final NvmlLoader SYSTEM = new NvmlLoader(JAVACPP_IMPLEMENTATION);
    private static final int MAX_REASON_LENGTH = 400;

    private final String implementation;
    private NvmlAvailability verdict;

    /**
     * @param implementation a class with a public static {@code open()} returning an opened {@link NvmlLibrary}
     */
    public NvmlLoader(String implementation)
    {
        this.implementation = requireNonNull(implementation, "implementation is null");
    }

    /** The process-wide loader for the real NVML through JavaCPP. */
    public static NvmlLoader system()
    {
        return SYSTEM;
    }

    /** Opens NVML on the first call; later calls return the same verdict. Never throws. */
    public synchronized NvmlAvailability load()
    {
        if (verdict == null) {
            verdict = open();
        }
        return verdict;
    }

    private NvmlAvailability open()
    {
        try {
            Class<?> type = Class.forName(implementation, true, NvmlLoader.class.getClassLoader());
            Method open = type.getMethod("open");
            Object library = open.invoke(null);
            if (!(library instanceof NvmlLibrary)) {
                return NvmlAvailability.unavailable(implementation + ".open() did not return an NvmlLibrary");
            }
            return NvmlAvailability.available((NvmlLibrary) library);
        }
        catch (InvocationTargetException e) {
            return NvmlAvailability.unavailable(describe(e.getCause() == null ? e : e.getCause()));
        }
        catch (Throwable e) {
            return NvmlAvailability.unavailable(describe(e));
        }
    }

    private static String describe(Throwable failure)
    {
        // "no jnicudart in java.library.path: <every directory>": the directories drown the point
        String message = failure.getMessage() == null ? "" : ": " + failure.getMessage().strip().replaceFirst(" in java\\.library\\.path.*", "");
        String text;
        if (failure instanceof UnsatisfiedLinkError) {
            // JavaCPP's NVML preset inherits the CUDA runtime preset, so libcudart.so.13 must load too
            text = failure.getClass().getSimpleName() + message
                    + " (the JavaCPP NVML bindings need the driver's libnvidia-ml.so.1 and libcuda.so.1, and the CUDA 13 runtime libcudart.so.13)";
        }
        else if (failure instanceof NvmlCallException) {
            text = failure.getMessage();
        }
        else {
            text = failure.getClass().getSimpleName() + message;
        }
        return text.length() <= MAX_REASON_LENGTH ? text : text.substring(0, MAX_REASON_LENGTH) + "...";
    }
}
