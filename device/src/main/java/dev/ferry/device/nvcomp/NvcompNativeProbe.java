package dev.ferry.device.nvcomp;

import dev.ferry.device.kernel.KernelAvailability;
import org.bytedeco.cuda.global.nvcomp;
import org.bytedeco.cuda.nvcomp.nvcompProperties_t;

import java.util.function.Supplier;

/** The first code that touches nvCOMP; loaded only by {@link NvcompProbe} through reflection. */
final class NvcompNativeProbe
        implements Supplier<KernelAvailability>
{
    @Override
    public KernelAvailability get()
    {
        try (nvcompProperties_t properties = new nvcompProperties_t()) {
            int status = nvcomp.nvcompGetProperties(properties);
            if (status != nvcomp.nvcompSuccess) {
                return KernelAvailability.unavailable("nvcompGetProperties failed with nvcompStatus " + status);
            }
            return KernelAvailability.available("nvCOMP version " + properties.version() + " (CUDA runtime " + properties.cudart_version() + ")");
        }
    }
}
