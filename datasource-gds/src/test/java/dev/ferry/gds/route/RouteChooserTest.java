package dev.ferry.gds.route;

import dev.ferry.gds.GdsRouteSetting;
import dev.ferry.gds.io.IoRoute;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RouteChooserTest
{
    private static final DeviceProbe NO_GPU = () -> new DeviceVerdict(false, "device backend host: no libcuda.so.1");
    private static final DeviceProbe GPU = () -> new DeviceVerdict(true, "device backend simulated with 2 device(s)");
    private static final FileRouteAdvisor POLICY_SAYS_GDS = (file, device) -> new RouteChoice(IoRoute.GDS, "ext4 on nvme0 next to GPU " + device, false);
    private static final FileRouteAdvisor NOT_CONSULTED = (file, device) -> {
        throw new AssertionError("the policy must not be asked");
    };

    @Test
    void hostIsAlwaysServed()
    {
        RouteChoice choice = new RouteChooser(GdsRouteSetting.HOST, GPU, NOT_CONSULTED).choose("/data/a.parquet", 0);
        assertEquals(IoRoute.HOST, choice.route());
        assertFalse(choice.fallback());
    }

    @Test
    void autoWithoutGpuReadsOnTheHostWithoutAskingThePolicy()
    {
        RouteChoice choice = new RouteChooser(GdsRouteSetting.AUTO, NO_GPU, NOT_CONSULTED).choose("/data/a.parquet", 0);
        assertEquals(IoRoute.HOST, choice.route());
        assertFalse(choice.fallback());
        assertTrue(choice.reason().contains("no libcuda.so.1"), choice.reason());
    }

    @Test
    void autoWithGpuTakesThePolicysRouteForTheTasksDevice()
    {
        RouteChoice choice = new RouteChooser(GdsRouteSetting.AUTO, GPU, POLICY_SAYS_GDS).choose("/data/a.parquet", 1);
        assertEquals(IoRoute.GDS, choice.route());
        assertTrue(choice.reason().contains("GPU 1"), choice.reason());
        assertFalse(choice.fallback());
    }

    @Test
    void autoBouncesAndCountsAFallbackWhenThePlacementCannotBeJudged()
    {
        long before = RouteChooser.fallbacks();
        FileRouteAdvisor broken = (file, device) -> {
            throw new IllegalStateException("cannot read /proc/self/mountinfo");
        };
        RouteChoice choice = new RouteChooser(GdsRouteSetting.AUTO, GPU, broken).choose("/data/a.parquet", 0);
        assertEquals(IoRoute.BOUNCE, choice.route());
        assertTrue(choice.fallback());
        assertTrue(choice.reason().contains("mountinfo"), choice.reason());
        assertEquals(before + 1, RouteChooser.fallbacks());
    }

    @Test
    void forcedDeviceRoutesAreServedWithAGpuBackendAndRefusedWithoutOne()
    {
        assertEquals(IoRoute.GDS, new RouteChooser(GdsRouteSetting.GDS, GPU, NOT_CONSULTED).choose("/data/a.parquet", 0).route());
        assertEquals(IoRoute.BOUNCE, new RouteChooser(GdsRouteSetting.BOUNCE, GPU, NOT_CONSULTED).choose("/data/a.parquet", 0).route());
        for (GdsRouteSetting setting : new GdsRouteSetting[] {GdsRouteSetting.GDS, GdsRouteSetting.BOUNCE}) {
            RouteRefusedException refused = assertThrows(RouteRefusedException.class, () -> new RouteChooser(setting, NO_GPU, NOT_CONSULTED).choose("/data/a.parquet", 0));
            assertTrue(refused.getMessage().contains("no GPU-capable backend") && refused.getMessage().contains("/data/a.parquet")
                    && refused.getMessage().contains("no libcuda.so.1"), refused.getMessage());
        }
    }
}
