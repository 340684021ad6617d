package dev.ferry.gds.device;

import org.apache.arrow.memory.util.MemoryUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.ferry.gds.device.ArrowDeviceArrayLayout.ARRAY_CHILDREN;
import static dev.ferry.gds.device.ArrowDeviceArrayLayout.ARRAY_N_CHILDREN;
import static dev.ferry.gds.device.ArrowDeviceArrayLayout.ARRAY_SIZE;
import static dev.ferry.gds.device.ArrowDeviceArrayLayout.DEVICE_ARRAY_SIZE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The release callback is the native one from Arrow's C Data JNI library, called the way a C consumer calls it. */
class ReleaseCallbacksTest
{
    private final List<Long> allocations = new ArrayList<>();

    @BeforeEach
    void libraryLoads()
    {
        assertNull(ReleaseCallbacks.unavailableReason(), "arrow_cdata_jni ships for this platform");
    }

    @AfterEach
    void free()
    {
        allocations.forEach(MemoryUtil::freeMemory);
    }

    @Test
    void releaseRunsTheCallbackOnceAndMarksTheStructReleased()
    {
        long array = zeroed(DEVICE_ARRAY_SIZE);
        assertTrue(ReleaseCallbacks.isReleased(array), "a zeroed struct has a NULL release: released");
        List<String> calls = new ArrayList<>();
        ReleaseCallbacks.install(array, () -> calls.add("parent"));
        assertFalse(ReleaseCallbacks.isReleased(array));
        assertThrows(IllegalStateException.class, () -> ReleaseCallbacks.install(array, () -> {}), "a second callback would leak the first");

        ReleaseCallbacks.release(array);
        assertEquals(List.of("parent"), calls);
        assertTrue(ReleaseCallbacks.isReleased(array));
        ReleaseCallbacks.release(array);
        assertEquals(List.of("parent"), calls, "releasing a released struct is a no-op");
    }

    @Test
    void theParentsReleaseReleasesItsChildrenFirst()
    {
        long parent = zeroed(ARRAY_SIZE);
        long first = zeroed(ARRAY_SIZE);
        long second = zeroed(ARRAY_SIZE);
        long children = zeroed(16);
        MemoryUtil.putLong(children, first);
        MemoryUtil.putLong(children + 8, second);
        MemoryUtil.putLong(parent + ARRAY_N_CHILDREN, 2);
        MemoryUtil.putLong(parent + ARRAY_CHILDREN, children);
        List<String> calls = new ArrayList<>();
        ReleaseCallbacks.install(first, () -> calls.add("child 0"));
        ReleaseCallbacks.install(second, () -> calls.add("child 1"));
        ReleaseCallbacks.install(parent, () -> calls.add("parent"));

        ReleaseCallbacks.release(parent);
        assertEquals(List.of("child 0", "child 1", "parent"), calls);
        assertTrue(ReleaseCallbacks.isReleased(first));
        assertTrue(ReleaseCallbacks.isReleased(second));
        assertTrue(ReleaseCallbacks.isReleased(parent));
    }

    @Test
    void aConsumerThreadMayRelease()
            throws InterruptedException
    {
        long array = zeroed(ARRAY_SIZE);
        List<String> threads = new ArrayList<>();
        ReleaseCallbacks.install(array, () -> threads.add(Thread.currentThread().getName()));
        Thread consumer = new Thread(() -> ReleaseCallbacks.release(array), "consumer");
        consumer.start();
        consumer.join();
        assertEquals(List.of("consumer"), threads);
    }

    private long zeroed(long bytes)
    {
        long address = MemoryUtil.allocateMemory(bytes);
        MemoryUtil.setMemory(address, bytes, (byte) 0);
        allocations.add(address);
        return address;
    }
}
