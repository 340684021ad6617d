package dev.ferry.device.memory;

import dev.ferry.device.host.HostMemory;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The allocator tree on its own, over host memory. */
public class TestBufferAllocator
{
    private static BufferAllocator root(long limit, AllocationListener listener)
    {
        return BufferAllocator.newRoot("root", MemoryLocation.device(0), limit, HostMemory::allocate, listener, false);
    }

    @Test
    public void failedAllocationAsksTheListenerAndRetries()
    {
        AtomicInteger asked = new AtomicInteger();
        DeviceBuffer[] victim = new DeviceBuffer[1];
        AllocationListener spill = new AllocationListener()
        {
            @Override
            public boolean onFailedAllocation(BufferAllocator allocator, long size, String details)
            {
                asked.incrementAndGet();
                if (victim[0] == null) {
                    return false;
                }
                victim[0].close();
                victim[0] = null;
                return true;
            }
        };
        try (BufferAllocator root = root(1000, spill)) {
            victim[0] = root.allocate(600);
            try (DeviceBuffer buffer = root.allocate(600)) {
                assertEquals(600, buffer.length());
                assertEquals(1, asked.get());
            }
            DeviceOutOfMemoryException failure = assertThrows(DeviceOutOfMemoryException.class, () -> root.allocate(1001));
            assertEquals(1001, failure.requestedBytes());
            assertEquals(2, asked.get());
        }
    }

    @Test
    public void childrenDrawFromTheirParentAndCloseChecksThem()
    {
        BufferAllocator root = root(10_000, AllocationListener.NOOP);
        BufferAllocator child = root.newChildAllocator("child", 7_000);
        BufferAllocator grandchild = child.newChildAllocator("grandchild", 9_000);
        DeviceBuffer held = grandchild.allocate(5_000);
        assertEquals(5_000, root.allocatedBytes());
        assertEquals(2_000, grandchild.headroom());
        DeviceOutOfMemoryException failure = assertThrows(DeviceOutOfMemoryException.class, () -> grandchild.allocate(3_001));
        assertTrue(failure.getMessage().contains("allocator 'child' limit 7000, allocated 5000, peak 5000  <-- exceeds its limit"), failure.getMessage());
        IllegalStateException openChild = assertThrows(IllegalStateException.class, root::close);
        assertTrue(openChild.getMessage().contains("child allocator 'child' still open with 5000 bytes"), openChild.getMessage());
        DeviceBuffer slice = held.slice(100, 200);
        held.close();
        assertEquals(5_000, root.allocatedBytes(), "the slice holds the ledger");
        slice.close();
        assertEquals(0, root.allocatedBytes());
        grandchild.close();
        child.close();
        root.verify();
        assertThrows(IllegalStateException.class, () -> grandchild.allocate(1));
    }
}
