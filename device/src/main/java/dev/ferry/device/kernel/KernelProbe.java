package dev.ferry.device.kernel;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.function.Supplier;

/**
 * Probes NVRTC and the CUDA driver API once per JVM and caches the verdict with its reason.
 * Like {@code CudaProbe}, this class names no JavaCPP class: the native probe is reached by
 * reflection, because the first touch of {@code org.bytedeco.cuda.global.nvrtc} on a machine
 * without libnvrtc throws {@link UnsatisfiedLinkError} and every later touch
 * {@link NoClassDefFoundError}.
 */
public final class KernelProbe
{
    private static final Logger log = LoggerFactory.getLogger(KernelProbe.class);
    private static final String NATIVE_PROBE = "dev.ferry.device.kernel.KernelNativeProbe";
    private static volatile KernelAvailability cached;

    private KernelProbe() {}

    public static KernelAvailability availability()
    {
        KernelAvailability result = cached;
        if (result == null) {
            synchronized (KernelProbe.class) {
                result = cached;
                if (result == null) {
                    result = probe();
                    cached = result;
                    log.info("Kernel probe: {}", result);
                }
            }
        }
        return result;
    }

    @SuppressWarnings("unchecked")
    private static KernelAvailability probe()
    {
        try {
            Supplier<KernelAvailability> nativeProbe = (Supplier<KernelAvailability>) Class.forName(NATIVE_PROBE).getDeclaredConstructor().newInstance();
            return nativeProbe.get();
        }
        catch (VirtualMachineError e) {
            throw e;
        }
        catch (Throwable e) {
            // As in CudaProbe: a failed native load means "unavailable", not a crash.
            return KernelAvailability.unavailable(describe(e));
        }
    }

    static String describe(Throwable e)
    {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + ": " + root.getMessage();
    }
}
