package dev.ferry.gds.route;

import dev.ferry.gds.GdsRouteSetting;
import dev.ferry.gds.io.IoRoute;
import dev.ferry.topology.route.FileConsumer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RouteChooserTest
{
    private static final DeviceProbe NO_GPU = () -> new DeviceVerdict(false, "device backend host: no libcuda.so.1");
    private static final DeviceProbe GPU = () -> new DeviceVerdict(true, "device backend simulated with 2 device(s)");
    // A fake of the policy: GDS for a device consumer, HOST for a CPU one, the consumer named in the reason
    private static final FileRouteAdvisor POLICY = (file, device, consumer) -> consumer == FileConsumer.DEVICE
            ? new RouteChoice(IoRoute.GDS, "ext4 on nvme0 next to GPU " + device + " for a " + consumer.describe(), false)
            : new RouteChoice(IoRoute.HOST, "host I/O for a " + consumer.describe(), false);
    private static final FileRouteAdvisor NOT_CONSULTED = (file, device, consumer) -> {
        throw new AssertionError("the policy must not be asked");
    };

    @Test
    void hostIsAlwaysServed()
    {
        RouteChoice choice = new RouteChooser(GdsRouteSetting.HOST, FileConsumer.DEVICE, GPU, NOT_CONSULTED).choose("/data/a.parquet", 0);
        assertEquals(IoRoute.HOST, choice.route());
        assertFalse(choice.fallback());
        assertTrue(choice.reason().contains("device consumer"), choice.reason());
    }

    @Test
    void autoWithoutGpuReadsOnTheHostWithoutAskingThePolicy()
    {
        RouteChoice choice = new RouteChooser(GdsRouteSetting.AUTO, FileConsumer.DEVICE, NO_GPU, NOT_CONSULTED).choose("/data/a.parquet", 0);
        assertEquals(IoRoute.HOST, choice.route());
        assertFalse(choice.fallback());
        assertTrue(choice.reason().contains("no libcuda.so.1"), choice.reason());
    }

    @Test
    void autoWithGpuAsksThePolicyForTheConsumerAndTheTasksDevice()
    {
        RouteChoice device = new RouteChooser(GdsRouteSetting.AUTO, FileConsumer.DEVICE, GPU, POLICY).choose("/data/a.parquet", 1);
        assertEquals(IoRoute.GDS, device.route());
        assertTrue(device.reason().contains("GPU 1") && device.reason().contains("device consumer"), device.reason());
        assertFalse(device.fallback());

        RouteChoice cpu = new RouteChooser(GdsRouteSetting.AUTO, FileConsumer.CPU, GPU, POLICY).choose("/data/a.parquet", 1);
        assertEquals(IoRoute.HOST, cpu.route());
        assertTrue(cpu.reason().contains("CPU consumer"), cpu.reason());
    }

    @Test
    void autoFallsBackByConsumerAndCountsItWhenThePlacementCannotBeJudged()
    {
        FileRouteAdvisor broken = (file, device, consumer) -> {
            throw new IllegalStateException("cannot read /proc/self/mountinfo");
        };
        long before = RouteChooser.fallbacks();
        RouteChoice device = new RouteChooser(GdsRouteSetting.AUTO, FileConsumer.DEVICE, GPU, broken).choose("/data/a.parquet", 0);
        assertEquals(IoRoute.BOUNCE, device.route());
        assertTrue(device.fallback());
        assertTrue(device.reason().contains("mountinfo"), device.reason());
        assertEquals(before + 1, RouteChooser.fallbacks());

        RouteChoice cpu = new RouteChooser(GdsRouteSetting.AUTO, FileConsumer.CPU, GPU, broken).choose("/data/a.parquet", 0);
        assertEquals(IoRoute.HOST, cpu.route());
        assertTrue(cpu.fallback());
        assertEquals(before + 2, RouteChooser.fallbacks());
    }

    @Test
    void forcedDeviceRoutesAreServedWithAGpuBackendAndRefusedWithoutOne()
    {
        assertEquals(IoRoute.GDS, new RouteChooser(GdsRouteSetting.GDS, FileConsumer.DEVICE, GPU, NOT_CONSULTED).choose("/data/a.parquet", 0).route());
        assertEquals(IoRoute.BOUNCE, new RouteChooser(GdsRouteSetting.BOUNCE, FileConsumer.DEVICE, GPU, NOT_CONSULTED).choose("/data/a.parquet", 0).route());
        for (GdsRouteSetting setting : new GdsRouteSetting[] {GdsRouteSetting.GDS, GdsRouteSetting.BOUNCE}) {
            RouteRefusedException refused = assertThrows(RouteRefusedException.class,
                    () -> new RouteChooser(setting, FileConsumer.CPU, NO_GPU, NOT_CONSULTED).choose("/data/a.parquet", 0));
            assertTrue(refused.getMessage().contains("no GPU-capable backend") && refused.getMessage().contains("/data/a.parquet")
                    && refused.getMessage().contains("no libcuda.so.1"), refused.getMessage());
        }
    }

    @Test
    void aForcedDeviceRouteForACpuConsumerIsHonouredAndSaysWhatItCosts()
    {
        RouteChoice bounce = new RouteChooser(GdsRouteSetting.BOUNCE, FileConsumer.CPU, GPU, NOT_CONSULTED).choose("/data/a.parquet", 0);
        assertEquals(IoRoute.BOUNCE, bounce.route());
        assertTrue(bounce.reason().contains("two PCIe crossings") && bounce.reason().contains("host to device"), bounce.reason());
        RouteChoice gds = new RouteChooser(GdsRouteSetting.GDS, FileConsumer.CPU, GPU, NOT_CONSULTED).choose("/data/a.parquet", 0);
        assertEquals(IoRoute.GDS, gds.route());
        assertTrue(gds.reason().contains("two PCIe crossings") && gds.reason().contains("storage to device"), gds.reason());
        RouteChoice device = new RouteChooser(GdsRouteSetting.GDS, FileConsumer.DEVICE, GPU, NOT_CONSULTED).choose("/data/a.parquet", 0);
        assertFalse(device.reason().contains("PCIe crossings"), device.reason());
    }
}
