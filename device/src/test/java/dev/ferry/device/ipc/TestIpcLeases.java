package dev.ferry.device.ipc;

import dev.ferry.common.FerryException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

public class TestIpcLeases
{
    @TempDir
    Path temp;

    @Test
    public void sharedFilesAreOwnerOnlyWithUnguessableNames()
            throws Exception
    {
        Path first = SharedMemoryFiles.create(temp, "ferry-test");
        Path second = SharedMemoryFiles.create(temp, "ferry-test");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(first)));
        String prefix = "ferry-test-" + ProcessHandle.current().pid() + "-";
        assertTrue(first.getFileName().toString().startsWith(prefix));
        assertTrue(first.getFileName().toString().substring(prefix.length()).matches("[0-9a-f]{32}"), first.toString());
        assertNotEquals(first, second);
    }

    @Test
    public void anUnheldLeaseReleasesAndIsThenGone()
    {
        IpcExportLease lease = IpcExportLease.create(temp);
        assertTrue(Files.exists(lease.path()));
        assertTrue(lease.tryRelease(), "no importer holds it");
        assertFalse(Files.exists(lease.path()));
        FerryException gone = assertThrows(FerryException.class, () -> IpcImportLease.acquire(lease.path(), "test handle"));
        assertTrue(gone.getMessage().contains("already released"), gone.getMessage());
    }
}
