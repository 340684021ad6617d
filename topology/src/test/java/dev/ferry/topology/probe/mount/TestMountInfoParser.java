package dev.ferry.topology.probe.mount;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TestMountInfoParser
{
    private static final String MOUNTINFO = String.join("\n",
            "22 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw,errors=remount-ro",
            "25 22 0:23 / /dev/shm rw,nosuid,nodev - tmpfs tmpfs rw,size=24684092k",
            "31 22 259:0 / /data/raw\\040set rw,noatime shared:3 master:7 - xfs /dev/nvme1n1 rw,attr2,inode64",
            "35 22 0:30 / /data/raw rw - tmpfs tmpfs rw",
            "40 22 8:1 /exports/tab\\011and\\134slash /mnt/bind rw,relatime - ext4 /dev/sda1 rw,data=journal",
            "41 22 8:2 / /mnt/bind rw,relatime - xfs /dev/sda2 rw",
            "");

    @Test
    void fieldsAreSplitAndEscapesUndone()
    {
        List<MountEntry> entries = MountInfoParser.parse(MOUNTINFO);
        assertEquals(6, entries.size());
        MountEntry root = entries.get(0);
        assertEquals(22, root.mountId());
        assertEquals(1, root.parentId());
        assertEquals("259:2", root.deviceNumber());
        assertEquals("/", root.mountPoint());
        assertEquals(List.of("rw", "relatime"), root.mountOptions());
        assertEquals(List.of("shared:1"), root.optionalFields());
        assertEquals("ext4", root.filesystemType());
        assertEquals("/dev/nvme0n1p2", root.source());
        assertEquals(List.of("rw", "relatime", "errors=remount-ro"), root.allOptions());

        MountEntry spaced = entries.get(2);
        assertEquals("/data/raw set", spaced.mountPoint());
        assertEquals(List.of("shared:3", "master:7"), spaced.optionalFields());

        MountEntry bind = entries.get(4);
        assertEquals("/exports/tab\tand\\slash", bind.root());
        assertEquals(Optional.of("journal"), bind.option("data"));
        assertEquals(List.of(), entries.get(5).optionalFields());
    }

    @Test
    void longestComponentPrefixWinsAndTheTopmostMountOfAPoint()
    {
        MountTable table = new MountTable(MountInfoParser.parse(MOUNTINFO));
        assertEquals("xfs", table.find(Path.of("/data/raw set/part-0.parquet")).orElseThrow().filesystemType());
        assertEquals("tmpfs", table.find(Path.of("/data/raw/x")).orElseThrow().filesystemType());
        assertEquals("/", table.find(Path.of("/data/rawer/x")).orElseThrow().mountPoint(), "/data/raw is no prefix of /data/rawer");
        assertEquals("/dev/sda2", table.find(Path.of("/mnt/bind/file")).orElseThrow().source(), "the later mount on /mnt/bind is on top");
        assertEquals("/", table.find(Path.of("/")).orElseThrow().mountPoint());
    }

    @Test
    void malformedLinesNameTheirNumber()
    {
        FerryException error = assertThrows(FerryException.class, () -> MountInfoParser.parse("22 1 259:2 / / rw - ext4 /dev/x rw\n23 22 259:3 / /a rw ext4"));
        assertEquals(ErrorCategory.USER_ERROR, error.category());
        assertTrue(error.getMessage().startsWith("Malformed mountinfo line 2"), error.getMessage());
        assertThrows(FerryException.class, () -> MountInfoParser.parse("x 1 259:2 / / rw shared:1 - ext4 /dev/x rw"));
        assertThrows(FerryException.class, () -> MountInfoParser.parse("22 1 2592 / / rw shared:1 - ext4 /dev/x rw"));
    }
}
