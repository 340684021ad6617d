package dev.ferry.device.memory;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Slabs, sub-allocation, deferred frees and the books, with a fake slab source standing in for cudaMalloc. */
class TestSubAllocator
{
    private static final long KIB = 1024;

    /** Slabs numbered by creation; records frees; can be told to refuse. */
    private static final class FakeSlabs
            implements SubAllocator.SlabSource<Long>
    {
        final List<Long> made = new ArrayList<>();
        final List<Long> freed = new ArrayList<>();
        boolean refuse;

        @Override
        public Long allocate(long size)
        {
            if (refuse) {
                throw new DeviceOutOfMemoryException("fake cudaMalloc refused " + size, size);
            }
            made.add(size);
            return (long) made.size();
        }

        @Override
        public void free(Long slab)
        {
            freed.add(slab);
        }
    }

    @Test
    void buffersShareSlabsAndOnlyNewSlabsCostADriverAllocation()
    {
        FakeSlabs slabs = new FakeSlabs();
        SubAllocator<Long> pool = SubAllocator.growing("test pool", 4 * KIB, 64 * KIB, 256 * KIB, slabs);
        List<SubAllocator.Allocation<Long>> taken = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            taken.add(pool.allocate(4 * KIB - 1));
        }
        assertEquals(List.of(64 * KIB), slabs.made, "sixteen 4 KiB buffers fit one slab");
        assertEquals(16 * (4 * KIB - 1), pool.liveBytes());
        SubAllocator.Allocation<Long> big = pool.allocate(100 * KIB);
        assertEquals(List.of(64 * KIB, 100 * KIB), slabs.made, "a buffer larger than a slab gets a slab of its own size");
        assertEquals(0, big.offset());
        taken.forEach(range -> pool.free(range, () -> true));
        SubAllocator.Allocation<Long> again = pool.allocate(64 * KIB);
        assertEquals(2, slabs.made.size(), "freed ranges are reused without a driver call");
        assertEquals(1L, again.slab());
        pool.free(again, () -> true);
        pool.free(big, () -> true);
        assertEquals(0, pool.usedBytes());
        pool.close();
        assertEquals(2, slabs.freed.size(), "close gives empty slabs back");
    }

    /** A slab's release hooks (a NIC registration of the whole slab) run once, before the slab goes back to its source; a fixed slab's at close. */
    @Test
    void slabReleaseHooksRunOnceBeforeTheSlabIsFreed()
    {
        FakeSlabs slabs = new FakeSlabs();
        SubAllocator<Long> pool = SubAllocator.growing("test pool", 4 * KIB, 64 * KIB, 256 * KIB, slabs);
        List<String> events = new ArrayList<>();
        SubAllocator.Allocation<Long> first = pool.allocate(4 * KIB);
        SubAllocator.Allocation<Long> second = pool.allocate(4 * KIB);
        first.onSlabReleased(() -> events.add("hook, freed so far " + slabs.freed.size()));
        pool.free(first, () -> true);
        pool.trim();
        assertEquals(List.of(), events, "the slab still holds a buffer");
        pool.free(second, () -> true);
        pool.trim();
        assertEquals(List.of("hook, freed so far 0"), events, "run before the slab's free");
        assertEquals(List.of(1L), slabs.freed);
        pool.close();
        assertEquals(1, events.size(), "once");

        SubAllocator<String> arena = SubAllocator.fixed("arena", 4 * KIB, "mapping", 16 * KIB);
        AtomicBoolean released = new AtomicBoolean();
        SubAllocator.Allocation<String> range = arena.allocate(4 * KIB);
        range.onSlabReleased(() -> released.set(true));
        arena.free(range, () -> true);
        assertTrue(!released.get(), "a fixed slab is its owner's until the arena closes");
        arena.close();
        assertTrue(released.get());
    }

    @Test
    void deferredFreesStayCountedUntilReclaimedOnAllocation()
    {
        FakeSlabs slabs = new FakeSlabs();
        SubAllocator<Long> pool = SubAllocator.growing("test pool", 4 * KIB, 64 * KIB, 64 * KIB, slabs);
        AtomicBoolean importerGone = new AtomicBoolean();
        SubAllocator.Allocation<Long> exported = pool.allocate(60 * KIB);
        pool.free(exported, importerGone::get);
        assertEquals(0, pool.liveBytes());
        assertEquals(60 * KIB, pool.pendingBytes());
        assertEquals(60 * KIB, pool.usedBytes(), "freed but mapped: still in use");
        DeviceOutOfMemoryException full = assertThrows(DeviceOutOfMemoryException.class, () -> pool.allocate(8 * KIB));
        assertTrue(full.getMessage().contains(60 * KIB + " bytes held by IPC importers"), full.getMessage());
        importerGone.set(true);
        SubAllocator.Allocation<Long> reused = pool.allocate(64 * KIB);
        assertEquals(0, pool.pendingBytes(), "the allocation reclaimed the range first");
        assertEquals(1, pool.deferredFrees());
        assertEquals(1, pool.reclaimedFrees());
        assertThrows(IllegalStateException.class, () -> pool.free(exported, () -> true), "a range is freed once");
        pool.free(reused, () -> true);
        pool.close();
    }

    @Test
    void underPressureEmptySlabsGoBackBeforeTheCapacityOrTheDriverRefuses()
    {
        FakeSlabs slabs = new FakeSlabs();
        SubAllocator<Long> pool = SubAllocator.growing("test pool", 4 * KIB, 64 * KIB, 128 * KIB, slabs);
        SubAllocator.Allocation<Long> first = pool.allocate(64 * KIB);
        SubAllocator.Allocation<Long> second = pool.allocate(64 * KIB);
        pool.free(first, () -> true);
        pool.free(second, () -> true);
        // Two empty 64 KiB slabs; a 128 KiB buffer needs its own slab, which fits only after both go back.
        SubAllocator.Allocation<Long> large = pool.allocate(128 * KIB);
        assertEquals(List.of(1L, 2L), slabs.freed);
        assertEquals(128 * KIB, pool.slabBytes());
        pool.free(large, () -> true);
        slabs.refuse = true;
        SubAllocator.Allocation<Long> fits = pool.allocate(64 * KIB);
        assertEquals(3L, fits.slab(), "a free range in an existing slab needs no driver call");
        pool.free(fits, () -> true);
        assertThrows(DeviceOutOfMemoryException.class, () -> pool.allocate(200 * KIB), "over the capacity");
        pool.close();
    }

    @Test
    void aFixedSlabNeverGrowsAndIsNotFreedByTheSubAllocator()
    {
        SubAllocator<String> arena = SubAllocator.fixed("arena", 4 * KIB, "mapping", 16 * KIB);
        SubAllocator.Allocation<String> a = arena.allocate(1);
        SubAllocator.Allocation<String> b = arena.allocate(1);
        assertNotEquals(a.offset(), b.offset());
        assertEquals(4 * KIB, b.offset() - a.offset(), "4 KiB aligned");
        assertThrows(DeviceOutOfMemoryException.class, () -> arena.allocate(16 * KIB));
        arena.free(a, () -> true);
        arena.free(b, () -> true);
        assertEquals(0, arena.trim());
        arena.close();
        assertEquals(16 * KIB, arena.slabBytes());
    }
}
