package dev.ferry.transport.local;

import dev.ferry.common.FerryException;
import dev.ferry.topology.route.Route;
import dev.ferry.transport.TestBytes;
import dev.ferry.transport.metrics.RouteCounters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

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
            assertEquals(first, ShmBlockHandle.fromBytes(first.toBytes()));

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
    void handlesCannotNameOtherFiles()
    {
        assertThrows(IllegalArgumentException.class, () -> new ShmBlockHandle("../../etc/passwd", 0, 10));
        assertThrows(IllegalArgumentException.class, () -> new ShmBlockHandle("ferry-shm-0123", 0, 10));
        assertThrows(IllegalArgumentException.class, () -> new ShmBlockHandle(ShmNames.newName() + "/x", 0, 10));
        assertThrows(IllegalArgumentException.class, () -> new ShmBlockHandle(ShmNames.newName(), Long.MAX_VALUE, 10));
        assertThrows(IllegalArgumentException.class, () -> ShmBlockHandle.fromBytes(new byte[] {0, 5, 'a'}));
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
}
