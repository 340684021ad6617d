package dev.ferry.device.contract;

import dev.ferry.device.DeviceMemoryBooks;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceStream;
import dev.ferry.device.IpcHandle;
import dev.ferry.device.memory.BufferAllocator;
import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.device.memory.DeviceOutOfMemoryException;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The allocator's books against the device pool's real use while exported buffers are freed under
 * an importer: a freed, still-mapped buffer stays counted (against the limit too) until the importer
 * lets go, is reclaimed by the next allocation or under pressure, and the books never drift.
 * Simulated and cuda share the sub-allocator that keeps these books; host has no IPC.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
public class TestDeviceMemoryBooks
{
    // Not a multiple of the 4 KiB slab alignment: the books count requested bytes, the slack stays inside the pool.
    private static final int BLOCK = (1 << 20) + 123;
    private static final int ROUNDS = 12;

    @ContractTest
    public void exportFreeImportLoopsKeepTheBooksExact(BackendUnderTest backend)
            throws Exception
    {
        if (backend == BackendUnderTest.HOST) {
            return;
        }
        try (DeviceRuntime runtime = backend.open();
                ChildJvm importer = ChildJvm.start(IpcImporterLoop.class, backend.mode());
                DeviceStream stream = runtime.newStream(0)) {
            BufferAllocator root = runtime.deviceAllocator(0);
            List<DeviceBuffer> kept = new ArrayList<>();
            for (int round = 0; round < ROUNDS; round++) {
                DeviceBuffer block = root.allocate(BLOCK);
                // The previous round's block was let go by the importer: this allocation reclaimed it.
                assertEquals(0, runtime.pendingIpcReleaseBytes(0), "round " + round + ": the deferred free is reclaimed on allocation");
                stream.copyFromHost(Patterns.direct(round, BLOCK), block, 0);
                IpcHandle handle = runtime.exportIpc(block);
                importer.send("OPEN " + round + " " + handle.toBase64() + " " + round);
                assertEquals("OPENED " + round, importer.nextLine(60, TimeUnit.SECONDS));
                if (round % 3 == 0) {
                    kept.add(root.allocate(4096));
                }
                block.close();
                DeviceMemoryBooks books = runtime.memoryBooks(0);
                assertTrue(books.exact(), "round " + round + ": " + books);
                assertEquals(BLOCK, books.heldByImporters(), "round " + round + ": the importer still maps the freed block");
                assertEquals(4096L * kept.size(), books.allocated(), "round " + round + ": " + books);
                assertEquals(books.used(), root.usedBytes());
                importer.send("CLOSE " + round);
                assertEquals("CLOSED " + round, importer.nextLine(60, TimeUnit.SECONDS));
                assertTrue(runtime.memoryBooks(0).exact(), "after the importer closed: " + runtime.memoryBooks(0));
            }
            kept.forEach(DeviceBuffer::close);
            runtime.reclaimIpcReleases();
            DeviceMemoryBooks end = runtime.memoryBooks(0);
            assertEquals(0, end.used(), end.toString());
            assertTrue(end.exact(), end.toString());
            importer.send("EXIT");
            assertEquals("BYE", importer.nextLine(60, TimeUnit.SECONDS));
        }
    }

    @ContractTest
    public void memoryHeldByAnImporterCountsAgainstTheLimitUntilReclaimedUnderPressure(BackendUnderTest backend)
            throws Exception
    {
        if (backend == BackendUnderTest.HOST) {
            return;
        }
        long reserved = (BLOCK + 4095L) / 4096 * 4096;
        try (DeviceRuntime runtime = backend.open(Map.of("spark.ferry.device.memoryLimit", String.valueOf(2 * reserved)));
                ChildJvm importer = ChildJvm.start(IpcImporterLoop.class, backend.mode());
                DeviceStream stream = runtime.newStream(0)) {
            BufferAllocator root = runtime.deviceAllocator(0);
            DeviceBuffer block = root.allocate(BLOCK);
            stream.copyFromHost(Patterns.direct(5, BLOCK), block, 0);
            importer.send("OPEN a " + runtime.exportIpc(block).toBase64() + " 5");
            assertEquals("OPENED a", importer.nextLine(60, TimeUnit.SECONDS));
            block.close();
            // Freed but mapped: the limit still sees it, so two more blocks do not fit.
            DeviceOutOfMemoryException full = assertThrows(DeviceOutOfMemoryException.class, () -> root.allocate(2L * BLOCK));
            assertTrue(full.getMessage().contains("held by IPC importers after free " + BLOCK), full.getMessage());
            assertTrue(runtime.memoryBooks(0).exact(), runtime.memoryBooks(0).toString());
            importer.send("CLOSE a");
            assertEquals("CLOSED a", importer.nextLine(60, TimeUnit.SECONDS));
            // Now the same allocation fails the limit check once, reclaims under pressure and fits.
            try (DeviceBuffer both = root.allocate(2L * BLOCK)) {
                assertEquals(0, runtime.pendingIpcReleaseBytes(0));
                assertEquals(2L * BLOCK, runtime.memoryBooks(0).used());
                assertTrue(runtime.memoryBooks(0).exact(), runtime.memoryBooks(0).toString());
                assertTrue(both.isOpen());
            }
            importer.send("EXIT");
            assertEquals("BYE", importer.nextLine(60, TimeUnit.SECONDS));
        }
    }
}
