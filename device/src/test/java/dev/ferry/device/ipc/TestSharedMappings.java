package dev.ferry.device.ipc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** One mapping per file, kept across opens; dropped when its file goes or is replaced, never while a slice is open. */
class TestSharedMappings
{
    private static final long SELF = ProcessHandle.current().pid();

    @TempDir
    Path directory;

    @Test
    void aFileIsMappedOnceAndSlicesSeeItsBytes()
            throws Exception
    {
        Path file = file("a", 8192, (byte) 5);
        try (SharedMappings mappings = new SharedMappings(4)) {
            try (SharedMappings.Slice first = mappings.open(file, SELF, 4096, 100); SharedMappings.Slice second = mappings.open(file, SELF, 0, 8192)) {
                assertEquals(100, first.buffer().remaining());
                assertEquals(5, first.buffer().get(99));
                second.buffer().put(4096, (byte) 9);
                assertEquals(9, first.buffer().get(0), "both slices are views of one shared mapping");
            }
            assertEquals(1, mappings.mapped());
            assertEquals(1, mappings.reused());
            assertEquals(9, Files.readAllBytes(file)[4096], "the mapping is shared with the file");
            assertThrows(IllegalArgumentException.class, () -> mappings.open(file, SELF, 8000, 200), "beyond the file");
            assertThrows(IllegalArgumentException.class, () -> mappings.open(file, SELF, -1, 10));
        }
    }

    @Test
    void aReplacedFileIsMappedAnewAndDeletedFilesAreDroppedWhenIdle()
            throws Exception
    {
        Path file = file("b", 4096, (byte) 1);
        try (SharedMappings mappings = new SharedMappings(4)) {
            SharedMappings.Slice old = mappings.open(file, SELF, 0, 4096);
            Files.delete(file);
            file("b", 4096, (byte) 2);
            try (SharedMappings.Slice fresh = mappings.open(file, SELF, 0, 4096)) {
                assertEquals(2, fresh.buffer().get(0), "the new file, not the old mapping");
                assertEquals(1, old.buffer().get(0), "the slice still open keeps the old mapping");
            }
            old.close();
            old.close();
            assertEquals(2, mappings.mapped());
            Files.delete(file);
            mappings.sweep();
            assertEquals(0, mappings.files(), "an idle mapping of a deleted file is unmapped");
        }
    }

    @Test
    void idleMappingsOfFilesWhoseOwnerExitedAreDropped()
            throws Exception
    {
        Process exited = new ProcessBuilder("true").start();
        exited.waitFor();
        Path file = file("d", 4096, (byte) 4);
        try (SharedMappings mappings = new SharedMappings(4)) {
            SharedMappings.Slice slice = mappings.open(file, exited.pid(), 0, 10);
            mappings.sweep();
            assertEquals(1, mappings.files(), "in use: kept");
            slice.close();
            mappings.sweep();
            assertEquals(0, mappings.files(), "idle, and its owner is gone");
        }
    }

    @Test
    void beyondTheLimitTheLeastRecentlyUsedIdleMappingGoes()
            throws Exception
    {
        try (SharedMappings mappings = new SharedMappings(2)) {
            Path a = file("c1", 4096, (byte) 1);
            Path b = file("c2", 4096, (byte) 2);
            Path c = file("c3", 4096, (byte) 3);
            mappings.open(a, SELF, 0, 1).close();
            SharedMappings.Slice held = mappings.open(b, SELF, 0, 1);
            mappings.open(c, SELF, 0, 1).close();
            assertEquals(2, mappings.files());
            mappings.open(b, SELF, 0, 1).close();
            assertEquals(3, mappings.mapped(), "b stayed mapped while in use: its second open reused it");
            held.close();
        }
    }

    private Path file(String name, int size, byte value)
            throws Exception
    {
        Path file = directory.resolve(name);
        byte[] bytes = new byte[size];
        Arrays.fill(bytes, value);
        Files.write(file, bytes);
        return file;
    }
}
