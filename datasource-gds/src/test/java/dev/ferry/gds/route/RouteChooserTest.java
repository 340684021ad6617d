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
    private static final DeviceProbe NO_GPU = () -> new DeviceVerdict(false, "no libcuda.so.1");
    private static final DeviceProbe GPU = () -> new DeviceVerdict(true, "CUDA 13.1, 1 device");

    @Test
    void hostIsAlwaysServed()
    {
        RouteChoice choice = new RouteChooser(GdsRouteSetting.HOST, GPU).choose("/data/a.parquet");
        assertEquals(IoRoute.HOST, choice.route());
        assertFalse(choice.fallback());
    }

    @Test
    void autoWithoutGpuReadsOnTheHostWithoutCountingAFallback()
    {
        RouteChoice choice = new RouteChooser(GdsRouteSetting.AUTO, NO_GPU).choose("/data/a.parquet");
        assertEquals(IoRoute.HOST, choice.route());
        assertFalse(choice.fallback());
        assertTrue(choice.reason().contains("no libcuda.so.1"), choice.reason());
    }

    @Test
    void autoWithGpuFallsBackToHostAndSaysSo()
    {
        long before = RouteChooser.fallbacks();
        RouteChoice choice = new RouteChooser(GdsRouteSetting.AUTO, GPU).choose("/data/a.parquet");
        assertEquals(IoRoute.HOST, choice.route());
        assertTrue(choice.fallback());
        assertEquals(before + 1, RouteChooser.fallbacks());
    }

    @Test
    void forcedDeviceRoutesAreRefusedWithTheReason()
    {
        for (GdsRouteSetting setting : new GdsRouteSetting[] {GdsRouteSetting.GDS, GdsRouteSetting.BOUNCE}) {
            RouteRefusedException withoutGpu = assertThrows(RouteRefusedException.class, () -> new RouteChooser(setting, NO_GPU).choose("/data/a.parquet"));
            assertTrue(withoutGpu.getMessage().contains("device runtime not available") && withoutGpu.getMessage().contains("/data/a.parquet"),
                    withoutGpu.getMessage());
            RouteRefusedException withGpu = assertThrows(RouteRefusedException.class, () -> new RouteChooser(setting, GPU).choose("/data/a.parquet"));
            assertTrue(withGpu.getMessage().contains("not wired"), withGpu.getMessage());
        }
    }
}
