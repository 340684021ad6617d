package dev.ferry.shuffle.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TestHostMapOutputStore
{
    /** A map output whose block {@code p} is {@code p + 1} copies of byte {@code seed + p}; partition 2 is empty. */
    private static EncodedMapOutput output(int partitions, int seed)
    {
        return new EncodedMapOutput()
        {
            @Override
            public int partitions()
            {
                return partitions;
            }

            @Override
            public long blockLength(int partition)
            {
                return partition == 2 ? 0 : 1000L * (partition + 1);
            }

            @Override
            public void writeBlock(int partition, ByteBuffer target)
            {
                ByteBuffer out = target.duplicate();
                for (long i = 0; i < blockLength(partition); i++) {
                    out.put((byte) (seed + partition));
                }
            }
        };
    }

    private static void assertBlock(MapOutputStore store, int shuffle, long mapId, int partition, int seed)
            throws IOException
    {
        Optional<BlockBytes> block = store.open(shuffle, mapId, partition);
        assertTrue(block.isPresent(), "block " + partition + " of map " + mapId);
        try (BlockBytes bytes = block.get()) {
            assertEquals(partition == 2 ? 0 : 1000L * (partition + 1), bytes.length());
            byte[] actual = new byte[(int) bytes.length()];
            bytes.buffer().getBytes(0, actual);
            byte[] expected = new byte[actual.length];
            java.util.Arrays.fill(expected, (byte) (seed + partition));
            assertArrayEquals(expected, actual);
        }
    }

    @Test
    void blocksInMemoryAreSlicesOfTheStoredOutput(@TempDir Path spill)
            throws IOException
    {
        try (BufferAllocator root = new RootAllocator()) {
            HostMapOutputStore store = new HostMapOutputStore(root.newChildAllocator("store", 0, Long.MAX_VALUE), 1 << 20, spill);
            assertEquals(0, store.commit(new MapOutputId(1, 100, 0, 5), output(4, 10)));
            long allocated = root.getAllocatedMemory();
            try (BlockBytes first = store.open(1, 100, 1).orElseThrow(); BlockBytes again = store.open(1, 100, 1).orElseThrow()) {
                assertEquals(first.buffer().memoryAddress(), again.buffer().memoryAddress(), "both are views of the stored bytes");
                assertEquals(allocated, root.getAllocatedMemory(), "opening a block copies nothing");
            }
            for (int partition = 0; partition < 4; partition++) {
                assertBlock(store, 1, 100, partition, 10);
            }
            assertTrue(store.open(1, 999, 0).isEmpty());
            assertEquals(1, store.removeShuffle(1));
            assertEquals(0, root.getAllocatedMemory() - 0, "released with its shuffle");
            store.close();
        }
    }

    @Test
    void outputsBeyondTheMemoryLimitGoToDisk(@TempDir Path spill)
            throws IOException
    {
        try (BufferAllocator root = new RootAllocator()) {
            HostMapOutputStore store = new HostMapOutputStore(root.newChildAllocator("store", 0, Long.MAX_VALUE), 12_000, spill);
            assertEquals(0, store.commit(new MapOutputId(2, 1, 0, 0), output(4, 1)));
            assertEquals(7000, store.commit(new MapOutputId(2, 2, 1, 0), output(4, 2)), "the second output (1000 + 2000 + 0 + 4000 bytes) does not fit");
            assertEquals(1, store.spilledOutputs());
            assertEquals(7000, store.diskBytes());
            for (int partition = 0; partition < 4; partition++) {
                assertBlock(store, 2, 1, partition, 1);
                assertBlock(store, 2, 2, partition, 2);
            }
            assertEquals(2, store.removeShuffle(2));
            try (java.util.stream.Stream<Path> files = Files.list(spill)) {
                assertEquals(0, files.count(), "spill files deleted with their shuffle");
            }
            store.close();
            assertEquals(0, root.getAllocatedMemory());
        }
    }

    @Test
    void aNewAttemptOfAMapTaskSupersedesTheOldOne(@TempDir Path spill)
            throws IOException
    {
        try (BufferAllocator root = new RootAllocator()) {
            HostMapOutputStore store = new HostMapOutputStore(root.newChildAllocator("store", 0, Long.MAX_VALUE), 1 << 20, spill);
            store.commit(new MapOutputId(3, 10, 0, 0), output(3, 1));
            store.commit(new MapOutputId(3, 11, 1, 0), output(3, 2));
            store.commit(new MapOutputId(3, 12, 0, 1), output(3, 3));
            assertTrue(store.open(3, 10, 0).isEmpty(), "attempt 10 of map 0 was superseded by attempt 12");
            assertBlock(store, 3, 11, 1, 2);
            assertBlock(store, 3, 12, 1, 3);
            store.remove(3, 11);
            assertTrue(store.open(3, 11, 0).isEmpty());
            // A reader still holding a block keeps its memory alive past removal.
            BlockBytes held = store.open(3, 12, 1).orElseThrow();
            store.removeShuffle(3);
            assertEquals((byte) 4, held.buffer().getByte(0));
            held.close();
            store.close();
            assertEquals(0, root.getAllocatedMemory());
        }
    }

    @Test
    void outputsKeptInSharedMemoryAreHandedOutByNameAndDeletedAfterTheLastReader(@TempDir Path spill, @TempDir Path shm)
            throws IOException
    {
        try (BufferAllocator root = new RootAllocator()) {
            HostMapOutputStore store = new HostMapOutputStore(root.newChildAllocator("store", 0, Long.MAX_VALUE), 1 << 20, spill, Optional.of(shm));
            store.commit(new MapOutputId(1, 100, 0, 5), output(4, 10));
            try (var files = Files.list(shm)) {
                assertEquals(1, files.count(), "one shared-memory file per map output");
            }
            for (int partition = 0; partition < 4; partition++) {
                assertBlock(store, 1, 100, partition, 10);
            }
            BlockBytes held = store.open(1, 100, 3).orElseThrow();
            var handle = held.sharedAt().orElseThrow();
            assertEquals(1000 + 2000, handle.offset(), "blocks back to back; partition 2 is empty");
            assertEquals(4000, handle.length());
            Path file = shm.resolve(handle.fileName());
            byte[] inFile = new byte[4000];
            try (var channel = java.nio.channels.FileChannel.open(file)) {
                channel.read(ByteBuffer.wrap(inFile), handle.offset());
            }
            byte[] expected = new byte[4000];
            java.util.Arrays.fill(expected, (byte) 13);
            assertArrayEquals(expected, inFile, "the file holds the block where the handle says");
            try (BlockBytes empty = store.open(1, 100, 2).orElseThrow()) {
                assertTrue(empty.sharedAt().isEmpty(), "an empty block has no place in the file");
            }

            assertEquals(1, store.removeShuffle(1));
            assertTrue(Files.exists(file), "a block still lent out keeps the file");
            held.close();
            assertTrue(Files.notExists(file), "deleted once the last reference is released");
            assertEquals(0, root.getAllocatedMemory());
            store.close();
        }
    }

    @Test
    void withoutUsableSharedMemoryTheOutputStaysInPlainMemoryAndTheFallbackIsCounted(@TempDir Path spill)
            throws IOException
    {
        Path missing = spill.resolve("no-such-shm-dir");
        long fallbacks = dev.ferry.shuffle.FerryFallbacks.total();
        try (BufferAllocator root = new RootAllocator()) {
            HostMapOutputStore store = new HostMapOutputStore(root.newChildAllocator("store", 0, Long.MAX_VALUE), 1 << 20, spill, Optional.of(missing));
            store.commit(new MapOutputId(1, 100, 0, 5), output(4, 10));
            assertEquals(fallbacks + 1, dev.ferry.shuffle.FerryFallbacks.total());
            try (BlockBytes block = store.open(1, 100, 1).orElseThrow()) {
                assertTrue(block.sharedAt().isEmpty());
            }
            assertBlock(store, 1, 100, 1, 10);
            store.close();
        }
    }
}
