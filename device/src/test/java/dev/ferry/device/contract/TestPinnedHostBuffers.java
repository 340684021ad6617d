package dev.ferry.device.contract;

import dev.ferry.common.FerryException;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceStream;
import dev.ferry.device.PinnedHostBuffer;
import dev.ferry.device.memory.BufferAllocator;
import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.device.memory.DeviceOutOfMemoryException;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Pinned host buffers with a host view ({@link DeviceRuntime#allocatePinnedHost}) on every backend:
 * page-locked on cuda, ordinary direct memory (said and counted) on simulated and host.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public class TestPinnedHostBuffers
{
    private static final int MIB = 1 << 20;

    @ContractTest
    public void hostViewBytesReachTheDeviceAndBack(BackendUnderTest backend)
    {
        int length = MIB + 17;
        try (DeviceRuntime runtime = backend.open();
                DeviceStream stream = runtime.newStream(0);
                BufferAllocator staging = runtime.pinnedAllocator().newChildAllocator("staging", 4 * MIB);
                PinnedHostBuffer in = runtime.allocatePinnedHost(staging, length);
                PinnedHostBuffer out = runtime.allocatePinnedHost(staging, length);
                DeviceBuffer device = runtime.deviceAllocator(0).allocate(length)) {
            assertEquals(2 * (long) length, staging.allocatedBytes());
            ByteBuffer view = in.hostBuffer();
            assertEquals(length, view.capacity());
            assertEquals(length, view.remaining());
            assertTrue(view.isDirect());
            view.put(Patterns.bytes(7, length));
            // host view -> device (a pinned-source copy) -> pinned -> host view
            stream.copy(in.deviceBuffer(), 0, device, 0, length);
            stream.copy(device, 0, out.deviceBuffer(), 0, length);
            stream.synchronize();
            byte[] back = new byte[length];
            out.hostBuffer().get(back);
            assertArrayEquals(Patterns.bytes(7, length), back);

            boolean cuda = backend == BackendUnderTest.CUDA;
            assertEquals(cuda, in.isPageLocked(), in.toString());
            assertEquals(cuda, in.address().isPresent());
            assertFalse(in.detail().isBlank());
            assertEquals(2, runtime.pinnedHostBuffersAllocated());
            assertEquals(cuda ? 0 : 2, runtime.pinnedHostBuffersNotPageLocked());
            if (!cuda) {
                assertTrue(in.detail().contains("not page-locked"), in.detail());
            }
        }
    }

    @ContractTest
    public void pinnedLimitAndLeakReportsApply(BackendUnderTest backend)
    {
        try (DeviceRuntime runtime = backend.open(Map.of("spark.ferry.device.pinnedLimit", "1m"))) {
            BufferAllocator task = runtime.pinnedAllocator().newChildAllocator("task", MIB);
            PinnedHostBuffer buffer = runtime.allocatePinnedHost(task, MIB);
            assertThrows(DeviceOutOfMemoryException.class, () -> runtime.allocatePinnedHost(task, 1));
            assertEquals(1, runtime.pinnedHostBuffersAllocated());
            IllegalStateException leak = assertThrows(IllegalStateException.class, task::close);
            assertTrue(leak.getMessage().contains("task"), leak.getMessage());
            buffer.close();
            assertEquals(0, task.allocatedBytes());
            FerryException doubleClose = assertThrows(FerryException.class, buffer::close);
            assertTrue(doubleClose.getMessage().contains("pinned host"), doubleClose.getMessage());
            assertThrows(FerryException.class, buffer::hostBuffer);
            assertThrows(FerryException.class, buffer::deviceBuffer);
            task.close();
        }
    }

    @ContractTest
    public void deviceAllocatorsAreRefused(BackendUnderTest backend)
    {
        try (DeviceRuntime runtime = backend.open()) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> runtime.allocatePinnedHost(runtime.deviceAllocator(0), 4096));
            assertTrue(refused.getMessage().contains("pinned allocator"), refused.getMessage());
            assertEquals(0, runtime.pinnedHostBuffersAllocated());
        }
    }
}
