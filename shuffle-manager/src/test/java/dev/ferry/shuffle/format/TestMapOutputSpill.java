package dev.ferry.shuffle.format;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The map side under memory pressure: payload heap is asked for and given back, a grant below
 * what the payloads need (or a request from Spark) spills them to the task's spill file, and
 * every block read back holds exactly its partition's rows in order, checksum verified.
 */
class TestMapOutputSpill
{
    private static final int PARTITIONS = 7;
    private static final EncodingSettings TIGHT = new EncodingSettings(CompressionKind.LZ4, 1, 64, 8 * 1024, 256 * 1024, ChecksumAlgorithm.CRC32C);

    @TempDir
    Path spillDirectory;

    /** Grants at most {@code budget} bytes outstanding, like an execution pool with that much free. */
    static final class Budget
            implements MemoryGrants
    {
        private final long budget;
        long outstanding;
        long peak;

        Budget(long budget)
        {
            this.budget = budget;
        }

        @Override
        public long acquire(long bytes)
        {
            long granted = Math.max(0, Math.min(bytes, budget - outstanding));
            outstanding += granted;
            peak = Math.max(peak, outstanding);
            return granted;
        }

        @Override
        public void release(long bytes)
        {
            outstanding -= bytes;
            assertTrue(outstanding >= 0, "released more than was granted");
        }
    }

    @Test
    void aGrantBelowThePayloadsSpillsAndEveryRowComesBack()
            throws IOException
    {
        List<UnsafeRow> rows = TestingRows.random(TestingRows.ALL_TYPES, 6000, 31);
        Budget budget = new Budget(64 * 1024);
        Path spillFile = spillDirectory.resolve("map.spill");
        try (BufferAllocator allocator = new RootAllocator()) {
            List<byte[]> blocks;
            try (MapOutputEncoder encoder = new MapOutputEncoder(TestingRows.ALL_TYPES, PARTITIONS, allocator, TIGHT, budget, () -> spillFile)) {
                for (int i = 0; i < rows.size(); i++) {
                    encoder.append(i % PARTITIONS, rows.get(i));
                }
                encoder.finish();
                assertTrue(encoder.spills() > 1, "spills: " + encoder.spills());
                assertTrue(encoder.diskBytesSpilled() > 0 && encoder.memoryBytesSpilled() > 0, "spilled bytes counted");
                assertTrue(budget.peak <= 64 * 1024, "never held more than granted: " + budget.peak);
                assertEquals(encoder.heldBytes(), budget.outstanding, "the encoder's account matches the grants");
                blocks = blocks(encoder);
                assertTrue(Files.exists(spillFile), "the spill file lives until the encoder is closed");
                assertStreamedBlocksAreTheSame(encoder, blocks);
            }
            assertEquals(0, budget.outstanding, "close gave back every granted byte");
            assertFalse(Files.exists(spillFile), "close deleted the spill file");
            assertDecodesTo(allocator, rows, blocks);
            assertEquals(0, allocator.getAllocatedMemory());
        }
    }

    @Test
    void spillWhenAskedGivesBackWhatWasGrantedAndReleasesOpenBatches()
            throws IOException
    {
        List<UnsafeRow> rows = TestingRows.random(TestingRows.ALL_TYPES, 4000, 32);
        Budget budget = new Budget(Long.MAX_VALUE);
        try (BufferAllocator allocator = new RootAllocator()) {
            List<byte[]> blocks;
            try (MapOutputEncoder encoder = new MapOutputEncoder(TestingRows.ALL_TYPES, PARTITIONS, allocator, TIGHT, budget, () -> spillDirectory.resolve("asked.spill"))) {
                for (int i = 0; i < rows.size(); i++) {
                    encoder.append(i % PARTITIONS, rows.get(i));
                    if (i == rows.size() / 2) {
                        long held = budget.outstanding;
                        assertTrue(held > 0, "payload heap was accounted");
                        assertTrue(allocator.getAllocatedMemory() > 0, "open batches hold Arrow memory");
                        assertEquals(held, encoder.spill(), "spill returns what it gave back");
                        assertEquals(0, budget.outstanding);
                        assertEquals(0, allocator.getAllocatedMemory(), "the open batches were serialized and released");
                    }
                }
                encoder.finish();
                assertEquals(1, encoder.spills());
                blocks = blocks(encoder);
            }
            assertEquals(0, budget.outstanding);
            assertDecodesTo(allocator, rows, blocks);
        }
    }

    /** With memory to spare the encoder never spills, and its blocks are those of an encoder without accounting. */
    @Test
    void enoughMemoryMeansNoSpillAndTheSameBytes()
            throws IOException
    {
        List<UnsafeRow> rows = TestingRows.random(TestingRows.ALL_TYPES, 3000, 33);
        Budget budget = new Budget(Long.MAX_VALUE);
        // One allocator each: the encoder flushes early by its allocator's total.
        try (BufferAllocator allocator = new RootAllocator();
                BufferAllocator other = new RootAllocator();
                MapOutputEncoder accounted = new MapOutputEncoder(TestingRows.ALL_TYPES, PARTITIONS, allocator, TIGHT, budget, () -> spillDirectory.resolve("unused.spill"));
                MapOutputEncoder plain = new MapOutputEncoder(TestingRows.ALL_TYPES, PARTITIONS, other, TIGHT)) {
            for (int i = 0; i < rows.size(); i++) {
                accounted.append(i % PARTITIONS, rows.get(i));
                plain.append(i % PARTITIONS, rows.get(i));
            }
            accounted.finish();
            plain.finish();
            assertEquals(0, accounted.spills());
            assertFalse(Files.exists(spillDirectory.resolve("unused.spill")));
            List<byte[]> a = blocks(accounted);
            List<byte[]> b = blocks(plain);
            for (int partition = 0; partition < PARTITIONS; partition++) {
                assertTrue(Arrays.equals(b.get(partition), a.get(partition)), "partition " + partition);
            }
        }
    }

    /** The blocks streamed into a file (how the host store writes an output that goes to disk) are the blocks written to a buffer. */
    private void assertStreamedBlocksAreTheSame(MapOutputEncoder encoder, List<byte[]> blocks)
            throws IOException
    {
        Path file = spillDirectory.resolve("streamed.data");
        long position = 7;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.READ)) {
            for (int partition = 0; partition < PARTITIONS; partition++) {
                if (blocks.get(partition).length == 0) {
                    continue;
                }
                encoder.writeBlock(partition, channel, position);
                ByteBuffer back = ByteBuffer.allocate(blocks.get(partition).length);
                while (back.hasRemaining()) {
                    channel.read(back, position + back.position());
                }
                assertTrue(Arrays.equals(blocks.get(partition), back.array()), "partition " + partition + " streamed");
                position += blocks.get(partition).length;
            }
        }
    }

    private static List<byte[]> blocks(MapOutputEncoder encoder)
    {
        List<byte[]> blocks = new ArrayList<>();
        for (int partition = 0; partition < PARTITIONS; partition++) {
            ByteBuffer block = ByteBuffer.allocate((int) encoder.blockLength(partition));
            if (block.capacity() > 0) {
                encoder.writeBlock(partition, block);
            }
            blocks.add(block.array());
        }
        return blocks;
    }

    private static void assertDecodesTo(BufferAllocator allocator, List<UnsafeRow> rows, List<byte[]> blocks)
            throws CorruptBlockException
    {
        List<List<UnsafeRow>> decoded = new ArrayList<>();
        for (byte[] block : blocks) {
            decoded.add(block.length == 0 ? List.of() : TestBlockRoundTrip.decodeAll(allocator, TestingRows.ALL_TYPES, block));
        }
        TestBlockRoundTrip.assertPartitionsMatch(rows, PARTITIONS, decoded);
    }
}
