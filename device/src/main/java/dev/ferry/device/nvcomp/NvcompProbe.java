package dev.ferry.device.nvcomp;

import dev.ferry.device.kernel.KernelAvailability;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.function.Supplier;

/**
 * Whether nvCOMP's library loads here (cached once per process), with the reason when not. Names no
 * JavaCPP class: the native probe is reached by reflection, because the first touch of
 * {@code org.bytedeco.cuda.global.nvcomp} without libnvcomp throws {@link UnsatisfiedLinkError}.
 * Where it is unavailable every chunk is decompressed on the CPU, counted by that reason.
 */
public final class NvcompProbe
{
    private static final Logger log = LoggerFactory.getLogger(NvcompProbe.class);
    private static final String NATIVE_PROBE = "dev.ferry.device.nvcomp.NvcompNativeProbe";
    private static volatile KernelAvailability cached;

    private NvcompProbe() {}

    public static KernelAvailability availability()
    {
        KernelAvailability result = cached;
        if (result == null) {
            synchronized (NvcompProbe.class) {
                result = cached;
                if (result == null) {
                    result = probe();
                    cached = result;
                    log.info("nvCOMP probe: {}", result);
                }
            }
        }
        return result;
    }

    @SuppressWarnings("unchecked")
    private static KernelAvailability probe()
    {
        try {
            return ((Supplier<KernelAvailability>) Class.forName(NATIVE_PROBE).getDeclaredConstructor().newInstance()).get();
        }
        catch (VirtualMachineError e) {
            throw e;
        }
        catch (Throwable e) {
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            return KernelAvailability.unavailable("nvCOMP does not load: " + root.getClass().getSimpleName() + ": " + root.getMessage());
        }
    }
}
