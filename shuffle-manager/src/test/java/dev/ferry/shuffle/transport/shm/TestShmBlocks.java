package dev.ferry.shuffle.transport.shm;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;

import dev.ferry.common.FerryException;
import dev.ferry.shuffle.transport.TestBytes;
import dev.ferry.shuffle.transport.metrics.RouteCounters;
import dev.ferry.shuffle.transport.wire.ShmLocation;
import dev.ferry.topology.route.Route;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** HOST_SHM files: private, unguessable, bounds-checked, and never a way to read another file. */
class TestShmBlocks
{
    @TempDir
    Path directory;

    @Test
    void publishedBlocksAreOwnerOnlyWithRandomNamesAndReadBack()
            throws Exception
    {
        RouteCounters counters = new RouteCounters();
        try (ShmBlockWriter writer = new ShmBlockWriter(directory)) {
            ByteBuffer block = TestBytes.direct(31, 5000);
            ShmBlockHandle first = writer.publish(block);
            ShmBlockHandle second = writer.publish(block);
            assertEquals(5000, block.remaining(), "publishing does not consume the caller's buffer");
            assertNotEquals(first.fileName(), second.fileName());
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(directory.resolve(first.fileName()))));
            assertEquals(first, ShmBlockHandle.fromLocation(first.toLocation()));

            ByteBuffer target = ByteBuffer.allocateDirect(5000);
            new ShmBlockReader(directory, counters).read(first, target);
            assertArrayEquals(TestBytes.bytes(31, 5000), TestBytes.toArray(target.flip()));
            assertEquals(1, counters.blocks(Route.HOST_SHM));
            writer.release(first);
            assertTrue(Files.notExists(directory.resolve(first.fileName())));
            assertThrows(IllegalArgumentException.class, () -> writer.release(first), "released twice");
        }
        try (var files = Files.list(directory)) {
            assertEquals(0, files.count(), "close deletes every published file");
        }
    }

    @Test
    void stagedBlocksReuseArenaRangesOnlyAfterTheReaderLetsGo()
            throws Exception
    {
        RouteCounters counters = new RouteCounters();
        ShmBlockReader reader = new ShmBlockReader(directory, counters);
        try (BufferAllocator allocator = new RootAllocator(); ShmBlockWriter writer = new ShmBlockWriter(directory, 1 << 20)) {
            ShmBlockHandle first = writer.publish(TestBytes.direct(41, 300_000));
            assertTrue(first.leaseName().isPresent(), "a block in the staging arena carries its lease");
            assertEquals(first, ShmBlockHandle.fromLocation(first.toLocation()));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(directory.resolve(first.fileName()))));
            ArrowBuf held = reader.open(first, allocator);
            ShmBlockHandle longer = new ShmBlockHandle(first.fileName(), first.offset(), first.length() + 1, first.leaseName());
            FerryException beyondLease = assertThrows(FerryException.class, () -> reader.open(longer, allocator));
            assertTrue(beyondLease.getMessage().contains("does not grant"), beyondLease.getMessage());
            ShmBlockHandle withoutLease = new ShmBlockHandle(first.fileName(), 0, 1000);
            FerryException noLease = assertThrows(FerryException.class, () -> reader.read(withoutLease, ByteBuffer.allocate(1000)));
            assertTrue(noLease.getMessage().contains("only under its lease"), noLease.getMessage());
            writer.release(first);
            // The reader still holds the range: a new block must not land on it.
            ShmBlockHandle second = writer.publish(TestBytes.direct(42, 300_000));
            assertEquals(first.fileName(), second.fileName(), "same arena file");
            assertNotEquals(first.offset(), second.offset(), "a held range is not reused");
            byte[] bytes = new byte[300_000];
            held.getBytes(0, bytes);
            assertArrayEquals(TestBytes.bytes(41, 300_000), bytes, "the held block is intact after another block was staged");
            held.close();
            writer.release(second);
            // Both ranges are free now (the reader let go of the first, nobody opened the second): the first fit is offset 0 again.
            ShmBlockHandle third = writer.publish(TestBytes.direct(43, 300_000));
            assertEquals(first.offset(), third.offset(), "a range is reused once its reader let go");
            ByteBuffer copy = ByteBuffer.allocateDirect(300_000);
            reader.read(third, copy);
            assertArrayEquals(TestBytes.bytes(43, 300_000), TestBytes.toArray(copy.flip()));
            assertEquals(2, counters.blocks(Route.HOST_SHM));
            assertEquals(0, writer.arenaMisses());
            assertEquals(0, allocator.getAllocatedMemory());
        }
        try (var files = Files.list(directory)) {
            assertEquals(0, files.count(), "close deletes the arena and its lease files");
        }
    }

    @Test
    void aBlockThatFindsNoFreeRangeGetsAFileOfItsOwn()
            throws Exception
    {
        try (BufferAllocator allocator = new RootAllocator(); ShmBlockWriter writer = new ShmBlockWriter(directory, 64 << 10)) {
            ShmBlockHandle fits = writer.publish(TestBytes.direct(1, 40_000));
            ShmBlockHandle tooLarge = writer.publish(TestBytes.direct(2, 100_000));
            ShmBlockHandle noRoomLeft = writer.publish(TestBytes.direct(3, 40_000));
            assertTrue(fits.leaseName().isPresent());
            assertTrue(tooLarge.leaseName().isEmpty(), "larger than the arena");
            assertTrue(noRoomLeft.leaseName().isEmpty(), "the arena is held by the first block");
            assertEquals(2, writer.arenaMisses());
            ShmBlockReader reader = new ShmBlockReader(directory, new RouteCounters());
            int seed = 1;
            for (ShmBlockHandle handle : new ShmBlockHandle[] {fits, tooLarge, noRoomLeft}) {
                try (ArrowBuf block = reader.open(handle, allocator)) {
                    byte[] bytes = new byte[(int) handle.length()];
                    block.getBytes(0, bytes);
                    assertArrayEquals(TestBytes.bytes(seed++, (int) handle.length()), bytes);
                }
            }
        }
    }

    @Test
    void aRangeTheWriterHasReleasedCannotBeOpened()
    {
        try (BufferAllocator allocator = new RootAllocator(); ShmBlockWriter writer = new ShmBlockWriter(directory, 1 << 20)) {
            ShmBlockHandle handle = writer.publish(TestBytes.direct(7, 5000));
            writer.release(handle);
            // Nobody held it, so its lease ended with the release and the range may already hold another block.
            FerryException gone = assertThrows(FerryException.class, () -> new ShmBlockReader(directory, new RouteCounters()).open(handle, allocator));
            assertTrue(gone.getMessage().contains(handle.leaseName().orElseThrow()), gone.getMessage());
            ShmBlockHandle forged = new ShmBlockHandle(handle.fileName(), 0, 2 << 20, handle.leaseName());
            assertThrows(FerryException.class, () -> new ShmBlockReader(directory, new RouteCounters()).open(forged, allocator), "beyond the arena and without a lease");
        }
    }

    @Test
    void handlesCannotNameOtherFiles()
    {
        assertThrows(IllegalArgumentException.class, () -> new ShmBlockHandle("../../etc/passwd", 0, 10));
        assertThrows(IllegalArgumentException.class, () -> new ShmBlockHandle("ferry-shm-0123", 0, 10));
        assertThrows(IllegalArgumentException.class, () -> new ShmBlockHandle(ShmNames.newName() + "/x", 0, 10));
        assertThrows(IllegalArgumentException.class, () -> new ShmBlockHandle(ShmNames.newName(), Long.MAX_VALUE, 10));
        assertThrows(IllegalArgumentException.class, () -> ShmLocation.decode(ByteBuffer.wrap(new byte[] {0, 5, 'a'})), "a name longer than its bytes");
        // The wire carries any ASCII name; the reader's handle refuses one that is not a shared-memory block's name.
        assertThrows(IllegalArgumentException.class, () -> ShmBlockHandle.fromLocation(new ShmLocation("../../etc/passwd", 0, 10, java.util.Optional.empty())));
    }

    @Test
    void filesOpenToOthersSymlinksAndShortFilesAreRefused()
            throws Exception
    {
        ShmBlockReader reader = new ShmBlockReader(directory, new RouteCounters());
        String open = ShmNames.newName();
        Files.write(directory.resolve(open), new byte[100]);
        Files.setPosixFilePermissions(directory.resolve(open), PosixFilePermissions.fromString("rw-r--r--"));
        FerryException mode = assertThrows(FerryException.class, () -> reader.read(new ShmBlockHandle(open, 0, 100), ByteBuffer.allocate(100)));
        assertTrue(mode.getMessage().contains("mode is rw-r--r--"), mode.getMessage());

        Path secret = directory.resolve("not-a-block");
        Files.write(secret, new byte[100]);
        String link = ShmNames.newName();
        Files.createSymbolicLink(directory.resolve(link), secret);
        assertThrows(FerryException.class, () -> reader.read(new ShmBlockHandle(link, 0, 100), ByteBuffer.allocate(100)));

        String small = ShmNames.newName();
        Files.write(directory.resolve(small), new byte[100]);
        Files.setPosixFilePermissions(directory.resolve(small), PosixFilePermissions.fromString("rw-------"));
        FerryException beyond = assertThrows(FerryException.class, () -> reader.read(new ShmBlockHandle(small, 50, 51), ByteBuffer.allocate(51)));
        assertTrue(beyond.getMessage().contains("outside the file's 100 bytes"), beyond.getMessage());
        assertThrows(IllegalArgumentException.class, () -> reader.read(new ShmBlockHandle(small, 0, 100), ByteBuffer.allocate(99)));
    }

    @Test
    void aSegmentIsOneOwnerOnlyFileDeletedWhenItsLastReferenceGoes()
            throws Exception
    {
        try (BufferAllocator allocator = new RootAllocator()) {
            ShmSegment segment = ShmSegment.allocate(allocator, directory, 10_000);
            Path file = directory.resolve(segment.fileName());
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
            assertEquals(10_000, Files.size(file));
            assertEquals(10_000, allocator.getAllocatedMemory(), "the mapping is accounted in the allocator");
            segment.buffer().setBytes(100, TestBytes.direct(7, 5000));
            ShmBlockHandle handle = segment.handle(100, 5000);
            assertThrows(IllegalArgumentException.class, () -> segment.handle(9_000, 5000), "outside the segment");

            ArrowBuf slice = segment.buffer().slice(100, 5000);
            slice.getReferenceManager().retain();
            segment.buffer().close();
            assertTrue(Files.exists(file), "a slice still holds the segment");
            ByteBuffer copy = ByteBuffer.allocateDirect(5000);
            new ShmBlockReader(directory, new RouteCounters()).read(handle, copy);
            assertArrayEquals(TestBytes.bytes(7, 5000), TestBytes.toArray(copy.flip()));
            slice.close();
            assertTrue(Files.notExists(file), "unmapped and deleted with the last reference");
            assertEquals(0, allocator.getAllocatedMemory());
        }
    }

    @Test
    void largeBlocksAreMappedSmallOnesCopiedAndAMappingOutlivesTheDeletedFile()
            throws Exception
    {
        RouteCounters counters = new RouteCounters();
        ShmBlockReader reader = new ShmBlockReader(directory, counters);
        int large = (int) ShmBlockReader.MAP_MIN_BYTES + 12_345;
        try (BufferAllocator allocator = new RootAllocator(); ShmBlockWriter writer = new ShmBlockWriter(directory)) {
            ShmBlockHandle big = writer.publish(TestBytes.direct(3, large));
            ShmBlockHandle small = writer.publish(TestBytes.direct(5, 1000));
            ArrowBuf mapped = reader.open(big, allocator);
            ArrowBuf copied = reader.open(small, allocator);
            writer.release(big);
            writer.release(small);
            assertTrue(Files.notExists(directory.resolve(big.fileName())));
            byte[] bigBytes = new byte[large];
            mapped.getBytes(0, bigBytes);
            assertArrayEquals(TestBytes.bytes(3, large), bigBytes, "the mapping keeps its pages after the peer deleted the file");
            byte[] smallBytes = new byte[1000];
            copied.getBytes(0, smallBytes);
            assertArrayEquals(TestBytes.bytes(5, 1000), smallBytes);
            mapped.setByte(0, (byte) 99);
            assertEquals(2, counters.blocks(Route.HOST_SHM));
            assertTrue(allocator.getAllocatedMemory() >= large + 1000L, "both accounted in the reader's allocator");
            mapped.close();
            copied.close();
            assertEquals(0, allocator.getAllocatedMemory(), "unmapped on release");
        }
    }

    @Test
    void aMappedBlockIsCopyOnWriteAndNeverChangesThePeersFile()
            throws Exception
    {
        int large = (int) ShmBlockReader.MAP_MIN_BYTES;
        try (BufferAllocator allocator = new RootAllocator(); ShmBlockWriter writer = new ShmBlockWriter(directory)) {
            ShmBlockHandle handle = writer.publish(TestBytes.direct(9, large));
            try (ArrowBuf mapped = new ShmBlockReader(directory, new RouteCounters()).open(handle, allocator)) {
                mapped.setByte(10, (byte) 1);
            }
            ByteBuffer again = ByteBuffer.allocateDirect(large);
            new ShmBlockReader(directory, new RouteCounters()).read(handle, again);
            assertArrayEquals(TestBytes.bytes(9, large), TestBytes.toArray(again.flip()));
        }
    }

    @Test
    void filesOfProcessesThatExitedAreSweptAndLiveOnesKept()
            throws Exception
    {
        Process exited = new ProcessBuilder("true").start();
        exited.waitFor();
        String live = ShmNames.newName();
        String orphan = "ferry-shm-" + exited.pid() + "-0123456789abcdef0123456789abcdef";
        String noPid = "ferry-shm-0123456789abcdef0123456789abcdef";
        for (String name : new String[] {live, orphan, noPid}) {
            Files.write(directory.resolve(name), new byte[10]);
        }
        assertTrue(live.startsWith("ferry-shm-" + ProcessHandle.current().pid() + "-"));
        assertEquals(1, ShmNames.sweepOrphans(directory));
        assertTrue(Files.notExists(directory.resolve(orphan)));
        assertTrue(Files.exists(directory.resolve(live)), "this process's file");
        assertTrue(Files.exists(directory.resolve(noPid)), "a name without a pid cannot be judged");
    }
}
