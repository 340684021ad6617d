package dev.ferry.shuffle.transport.rdma.verbs;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import dev.ferry.shuffle.transport.wire.RemoteSlice;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class TestRegistration
{
    @Test
    void chunksStayBelowTheIntLimitAndCoverEverything()
    {
        List<RegistrationChunks.Chunk> chunks = RegistrationChunks.split(5L * Integer.MAX_VALUE + 7, Integer.MAX_VALUE);
        assertEquals(6, chunks.size());
        long covered = 0;
        for (RegistrationChunks.Chunk chunk : chunks) {
            assertEquals(covered, chunk.offset());
            covered += chunk.length();
        }
        assertEquals(5L * Integer.MAX_VALUE + 7, covered);
        assertEquals(7, chunks.get(5).length());
        assertThrows(IllegalArgumentException.class, () -> RegistrationChunks.split(0, 10));
    }

    @Test
    void remoteSlicesSplitAtRegionBoundariesAndRefuseOutOfRangeRequests()
            throws VerbsException
    {
        RegistrableMemory memory = RegistrableMemory.host(ByteBuffer.allocateDirect(250));
        List<MemoryRegion> regions = new ArrayList<>();
        for (RegistrationChunks.Chunk chunk : RegistrationChunks.split(250, 100)) {
            regions.add(new MemoryRegion(0x10000 * (regions.size() + 1), chunk.length(), 10 + regions.size(), 20 + regions.size(), Access.remoteReadable(), chunk.offset()));
        }
        List<List<MemoryRegion>> deregistered = new ArrayList<>();
        Registration registration = new Registration(memory, regions, deregistered::add);
        assertEquals(List.of(new RemoteSlice(0, 0x10000 + 90, 10, 20), new RemoteSlice(10, 0x20000, 100, 21), new RemoteSlice(110, 0x30000, 5, 22)),
                registration.remoteSlices(90, 115));
        assertEquals(21, registration.regionAt(199).rkey());
        assertThrows(IllegalArgumentException.class, () -> registration.remoteSlices(200, 51));
        assertThrows(IllegalArgumentException.class, () -> registration.remoteSlices(-1, 5));
        registration.deregister();
        assertEquals(List.of(regions), deregistered);
        assertThrows(VerbsException.class, registration::deregister);
    }

    @Test
    void regionsMustTileTheMemory()
    {
        RegistrableMemory memory = RegistrableMemory.host(ByteBuffer.allocateDirect(200));
        MemoryRegion first = new MemoryRegion(0x1000, 100, 1, 2, Set.of(Access.REMOTE_READ), 0);
        MemoryRegion gap = new MemoryRegion(0x2000, 99, 3, 4, Set.of(Access.REMOTE_READ), 101);
        assertThrows(IllegalArgumentException.class, () -> new Registration(memory, List.of(first, gap), regions -> { }));
        assertThrows(IllegalArgumentException.class, () -> new Registration(memory, List.of(first), regions -> { }));
    }

    @Test
    void regionContainmentHasNoOverflow()
    {
        MemoryRegion region = new MemoryRegion(Long.MAX_VALUE - 100, 100, 1, 2, Set.of(Access.REMOTE_READ), 0);
        assertEquals(true, region.contains(Long.MAX_VALUE - 100, 100));
        assertEquals(false, region.contains(Long.MAX_VALUE - 50, 51));
        assertEquals(false, region.contains(Long.MAX_VALUE - 101, 1));
        assertEquals(false, region.contains(Long.MAX_VALUE - 50, Long.MAX_VALUE));
    }
}
