package dev.ferry.device.simulated;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.CopyRoute;
import dev.ferry.device.DeviceEvent;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceStream;
import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.topology.model.PathClass;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Simulated link shaping: off by default, and when on, a copy takes at least bytes / bandwidth of its path class. */
public class TestBandwidthShaping
{
    private static final int MIB = 1 << 20;

    private static DeviceRuntime runtime(boolean shaping, String peerPath)
    {
        Map<String, String> config = new HashMap<>();
        config.put("spark.ferry.device", "simulated");
        config.put("spark.ferry.device.simulated.capacity", "8m");
        config.put("spark.ferry.device.simulated.peerPath", peerPath);
        config.put("spark.ferry.device.simulated.shaping.enabled", String.valueOf(shaping));
        config.put("spark.ferry.device.simulated.shaping.sysGBps", "0.05");
        config.put("spark.ferry.device.simulated.shaping.nvlinkGBps", "100");
        config.put("spark.ferry.device.simulated.shaping.pcieGBps", "0.1");
        return DeviceRuntime.create(new MapConfigSource(config));
    }

    @Test
    public void shapedCopiesTakeAtLeastTheirLinkTime()
    {
        try (DeviceRuntime runtime = runtime(true, "SYS");
                DeviceStream stream = runtime.newStream(0);
                DeviceBuffer zero = runtime.deviceAllocator(0).allocate(MIB);
                DeviceBuffer one = runtime.deviceAllocator(1).allocate(MIB)) {
            runtime.enablePeerAccess(0, 1);
            long start = System.nanoTime();
            stream.copyFromHost(ByteBuffer.allocateDirect(MIB), zero, 0);
            long hostMillis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(hostMillis >= 10, "1 MiB over a 0.1 GB/s PCIe link took only " + hostMillis + " ms");

            DeviceEvent before = stream.recordEvent();
            stream.copy(zero, 0, one, 0, MIB);
            DeviceEvent after = stream.recordEvent();
            assertTrue(after.millisSince(before) >= 20, "1 MiB across sockets at 0.05 GB/s took only " + after.millisSince(before) + " ms");
        }
    }

    @Test
    public void shapingFollowsThePathClassAndIsOffByDefault()
    {
        BandwidthShaper nvlink = new BandwidthShaper(PathClass.NVLINK, 150, 25, 12, 0);
        BandwidthShaper sys = new BandwidthShaper(PathClass.SYS, 150, 25, 12, 0);
        BandwidthShaper pxb = new BandwidthShaper(PathClass.PXB, 150, 25, 12, 0);
        assertEquals(150.0, nvlink.rate(CopyRoute.PEER));
        assertEquals(12.0, sys.rate(CopyRoute.PEER));
        assertEquals(25.0, pxb.rate(CopyRoute.PEER));
        assertEquals(25.0, nvlink.rate(CopyRoute.HOST_TO_DEVICE));
        assertEquals(0.0, nvlink.rate(CopyRoute.DEVICE_TO_DEVICE));

        // With shaping off (the default), the same 0.05 GB/s setting has no effect: 8 MiB would take 160 ms shaped.
        try (DeviceRuntime runtime = runtime(false, "SYS");
                DeviceStream stream = runtime.newStream(0);
                DeviceBuffer zero = runtime.deviceAllocator(0).allocate(8 * MIB);
                DeviceBuffer one = runtime.deviceAllocator(1).allocate(8 * MIB)) {
            runtime.enablePeerAccess(0, 1);
            long fastest = Long.MAX_VALUE;
            for (int i = 0; i < 5; i++) {
                long start = System.nanoTime();
                stream.copy(zero, 0, one, 0, 8 * MIB);
                fastest = Math.min(fastest, System.nanoTime() - start);
            }
            assertTrue(fastest < 160_000_000L, "an unshaped 8 MiB copy took " + fastest / 1_000_000 + " ms");
        }
    }
}
