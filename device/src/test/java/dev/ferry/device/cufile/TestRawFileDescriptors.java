package dev.ferry.device.cufile;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

public class TestRawFileDescriptors
{
    @TempDir
    Path temp;

    @Test
    public void readsTheDescriptorNumberTheKernelSees()
            throws Exception
    {
        Path file = Files.write(temp.resolve("fd.bin"), new byte[] {1, 2, 3});
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            int fd = RawFileDescriptors.of(channel);
            assertTrue(fd > 2, "fd " + fd);
            // /proc/self/fd/N points at the file we opened: the number is real, not a guess.
            assertEquals(file.toRealPath(), Files.readSymbolicLink(Paths.get("/proc/self/fd/" + fd)));
        }
    }
}
