package dev.ferry.device.kernel;

import dev.ferry.common.FerryException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

public class TestKernelProbe
{
    @Test
    public void probeGivesAVerdictWithAReasonAndCachesIt()
    {
        // On a machine without libnvrtc or libcuda this must be "unavailable", never UnsatisfiedLinkError.
        KernelAvailability availability = KernelProbe.availability();
        assertFalse(availability.reason().isBlank(), availability.toString());
        assertSame(availability, KernelProbe.availability());
    }

    @Test
    public void kernelCheckExitsQuietlyWhereKernelsAreUnavailable()
            throws Exception
    {
        assumeFalse(KernelProbe.availability().available(), "kernels are available here; the gpu-check stage runs the real check");
        // Returns normally (exit 0) after printing the reason; on a GPU it would launch the kernels instead.
        KernelCheck.main(new String[0]);
    }

    @Test
    public void launcherRefusesWithTheProbesReasonWhereKernelsAreUnavailable()
    {
        KernelAvailability availability = KernelProbe.availability();
        assumeFalse(availability.available(), "kernels are available here: the refusal cannot be checked");
        FerryException refused = assertThrows(FerryException.class, KernelLauncher::new);
        assertTrue(refused.getMessage().contains(availability.reason()), refused.getMessage());
    }
}
