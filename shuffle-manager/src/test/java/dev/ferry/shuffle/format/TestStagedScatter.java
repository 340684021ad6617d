package dev.ferry.shuffle.format;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import dev.ferry.shuffle.format.MapOutputEncoder.DirectReason;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The map side's staged scatter (rows copied into a stage, sorted by partition, appended a
 * partition's run and a column at a time) against appending each row straight to its batch: the
 * same blocks byte for byte, over many partitions and every type, across spills Spark asks for,
 * with rows that cannot be staged mixed in; and the stage's heap in the encoder's books.
 */
class TestStagedScatter
{
    /** Flat columns (the direct appenders) with strings, nulls and both decimal widths. */
    private static final StructType FLAT = new StructType()
            .add("id", DataTypes.LongType)
            .add("qty", DataTypes.IntegerType)
            .add("v", DataTypes.DoubleType)
            .add("price", DataTypes.createDecimalType(12, 2))
            .add("flag", DataTypes.BooleanType)
            .add("name", DataTypes.StringType)
            .add("day", DataTypes.DateType)
            .add("total", DataTypes.createDecimalType(22, 2))
            .add("note", DataTypes.StringType);
    private static final long STAGE = 48 * 1024;

    @TempDir
    Path spillDirectory;

    private static EncodingSettings settings(long stageBytes)
    {
        // A batch target small enough that batches are flushed by size while rows arrive; a buffer
        // limit high enough that no early flush cuts them (those may fall on other rows when staged).
        return new EncodingSettings(CompressionKind.LZ4, 1, 64, 6 * 1024, 64L << 20, ChecksumAlgorithm.CRC32C, stageBytes);
    }

    /** A skewed spread over the partitions, as a hash of skewed keys gives. */
    private static int[] partitionsFor(int rows, int partitions, long seed)
    {
        Random random = new Random(seed);
        int[] assigned = new int[rows];
        for (int i = 0; i < rows; i++) {
            assigned[i] = random.nextInt(4) == 0 ? random.nextInt(Math.min(3, partitions)) : random.nextInt(partitions);
        }
        return assigned;
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 37, 200})
    void stagedBlocksAreTheDirectBlocks(int partitions)
            throws IOException
    {
        for (StructType schema : List.of(FLAT, TestingRows.ALL_TYPES)) {
            List<UnsafeRow> rows = TestingRows.random(schema, 12_000, 41 + partitions);
            int[] assigned = partitionsFor(rows.size(), partitions, 7);
            List<InternalRow> input = new ArrayList<>(rows);
            assertSameBlocks(schema, input, assigned, partitions, -1);
        }
    }

    /** Spark asks for memory at the same rows of both: the staged rows are appended first, so the batches are cut at the same rows. */
    @Test
    void spillsWhenAskedKeepTheBytes()
            throws IOException
    {
        List<UnsafeRow> rows = TestingRows.random(FLAT, 15_000, 43);
        int[] assigned = partitionsFor(rows.size(), 64, 8);
        assertSameBlocks(FLAT, new ArrayList<>(rows), assigned, 64, 2_500);
    }

    /** Rows that are not UnsafeRows, and rows larger than the stage, go straight in after the staged rows before them. */
    @Test
    void rowsThatCannotBeStagedKeepTheirPlace()
            throws IOException
    {
        List<UnsafeRow> rows = TestingRows.random(FLAT, 8_000, 44);
        List<InternalRow> input = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            UnsafeRow row = rows.get(i);
            if (i % 97 == 0) {
                // A row of another kind with the same values (as a columnar batch's row view would be).
                input.add(generic(row));
            }
            else if (i % 1_001 == 0) {
                GenericInternalRow wide = generic(row);
                wide.update(8, org.apache.spark.unsafe.types.UTF8String.fromString("x".repeat((int) STAGE)));
                UnsafeRow large = TestingRows.unsafe(FLAT, wide);
                assertTrue(large.getSizeInBytes() > STAGE);
                input.add(large);
            }
            else {
                input.add(row);
            }
        }
        int[] assigned = partitionsFor(input.size(), 23, 9);
        MapOutputEncoder staged = assertSameBlocks(FLAT, input, assigned, 23, -1);
        assertEquals((rows.size() + 96) / 97, staged.directRows(DirectReason.NOT_UNSAFE_ROW));
        assertEquals(7, staged.directRows(DirectReason.LARGER_THAN_STAGE));
        assertEquals(0, staged.directRows(DirectReason.NO_STAGE_MEMORY));
    }

    /**
     * A grant too small for the payloads spills while the stage drains: the batches may be cut at
     * other rows, but every partition gets exactly its rows in order, the encoder never holds more
     * than granted, and its account matches the grants until close gives them all back.
     */
    @Test
    void aShortGrantSpillingWhileTheStageDrainsKeepsEveryRowAndTheBooks()
            throws IOException
    {
        int partitions = 7;
        List<UnsafeRow> rows = TestingRows.random(TestingRows.ALL_TYPES, 9_000, 45);
        TestMapOutputSpill.Budget budget = new TestMapOutputSpill.Budget(160 * 1024);
        try (BufferAllocator allocator = new RootAllocator()) {
            List<byte[]> blocks;
            try (MapOutputEncoder encoder = new MapOutputEncoder(TestingRows.ALL_TYPES, partitions, allocator, settings(STAGE), budget,
                    () -> spillDirectory.resolve("short.spill"))) {
                for (int i = 0; i < rows.size(); i++) {
                    encoder.append(i % partitions, rows.get(i));
                    assertEquals(encoder.heldBytes(), budget.outstanding, "row " + i);
                }
                encoder.finish();
                assertTrue(encoder.spills() > 1, "spills: " + encoder.spills());
                assertTrue(budget.peak <= 160 * 1024, "never held more than granted: " + budget.peak);
                assertEquals(encoder.heldBytes(), budget.outstanding, "the encoder's account matches the grants");
                assertEquals(0, encoder.directRows(DirectReason.NO_STAGE_MEMORY), "the stage got its heap");
                blocks = blocks(encoder, partitions);
            }
            assertEquals(0, budget.outstanding, "close gave back every granted byte");
            List<List<UnsafeRow>> decoded = new ArrayList<>();
            for (byte[] block : blocks) {
                decoded.add(block.length == 0 ? List.of() : TestBlockRoundTrip.decodeAll(allocator, TestingRows.ALL_TYPES, block));
            }
            TestBlockRoundTrip.assertPartitionsMatch(rows, partitions, decoded);
            assertEquals(0, allocator.getAllocatedMemory());
        }
    }

    /** The stage's heap is asked for with the first row, counted in the held and peak bytes, and given back by finish. */
    @Test
    void theStageIsInTheBooks()
            throws IOException
    {
        List<UnsafeRow> rows = TestingRows.random(FLAT, 50, 46);
        TestMapOutputSpill.Budget budget = new TestMapOutputSpill.Budget(Long.MAX_VALUE);
        try (BufferAllocator allocator = new RootAllocator();
                MapOutputEncoder encoder = new MapOutputEncoder(FLAT, 5, allocator, settings(STAGE), budget, () -> spillDirectory.resolve("unused.spill"))) {
            assertEquals(0, budget.outstanding);
            for (int i = 0; i < rows.size(); i++) {
                encoder.append(i % 5, rows.get(i));
            }
            long stage = budget.outstanding;
            assertTrue(stage > STAGE / 2 && stage <= STAGE, "stage heap accounted: " + stage);
            assertEquals(stage, encoder.heldBytes());
            assertEquals(0, allocator.getAllocatedMemory(), "the rows are still staged: no batch yet");
            encoder.finish();
            assertTrue(encoder.peakHeldBytes() >= stage, "peak " + encoder.peakHeldBytes());
            assertEquals(encoder.heldBytes(), budget.outstanding);
            assertTrue(budget.outstanding < stage, "finish gave the stage back: " + budget.outstanding);
            assertEquals(0, allocator.getAllocatedMemory());
        }
        assertEquals(0, budget.outstanding);
    }

    /**
     * Encodes {@code input} staged and direct (spilling both every {@code spillEvery} rows when
     * positive) and asserts the blocks are the same bytes and every Arrow byte was released; returns
     * the staged encoder (closed) for its counts.
     */
    private MapOutputEncoder assertSameBlocks(StructType schema, List<InternalRow> input, int[] assigned, int partitions, int spillEvery)
            throws IOException
    {
        TestMapOutputSpill.Budget stagedBudget = new TestMapOutputSpill.Budget(Long.MAX_VALUE);
        TestMapOutputSpill.Budget directBudget = new TestMapOutputSpill.Budget(Long.MAX_VALUE);
        try (BufferAllocator stagedAllocator = new RootAllocator();
                BufferAllocator directAllocator = new RootAllocator()) {
            MapOutputEncoder staged = new MapOutputEncoder(schema, partitions, stagedAllocator, settings(STAGE), stagedBudget, () -> spillDirectory.resolve("staged.spill"));
            try (staged;
                    MapOutputEncoder direct = new MapOutputEncoder(schema, partitions, directAllocator, settings(0), directBudget, () -> spillDirectory.resolve("direct.spill"))) {
                for (int i = 0; i < input.size(); i++) {
                    staged.append(assigned[i], input.get(i));
                    direct.append(assigned[i], input.get(i));
                    if (spillEvery > 0 && i % spillEvery == spillEvery - 1) {
                        long held = stagedBudget.outstanding;
                        assertEquals(held, staged.spill(), "spill gives back the payloads and the stage");
                        assertEquals(0, stagedBudget.outstanding);
                        direct.spill();
                    }
                }
                staged.finish();
                direct.finish();
                if (spillEvery > 0) {
                    assertEquals(direct.spills(), staged.spills());
                    assertTrue(staged.spills() > 1);
                }
                assertEquals(direct.records(), staged.records());
                assertEquals(0, staged.earlyFlushes(), "no early flush, so the batches are cut at the same rows");
                List<byte[]> expected = blocks(direct, partitions);
                List<byte[]> actual = blocks(staged, partitions);
                int nonEmpty = 0;
                for (int partition = 0; partition < partitions; partition++) {
                    assertArrayEquals(expected.get(partition), actual.get(partition), "partition " + partition + " of " + partitions);
                    nonEmpty += expected.get(partition).length > 0 ? 1 : 0;
                }
                assertEquals(Math.min(partitions, input.size()), nonEmpty, "every partition got rows");
                assertEquals(0, stagedAllocator.getAllocatedMemory(), "finish released every open batch");
            }
            assertEquals(0, stagedBudget.outstanding, "close gave back every granted byte");
            return staged;
        }
    }

    /** The same values in a GenericInternalRow (a row the stage cannot copy, as a columnar batch's row view). */
    private static GenericInternalRow generic(UnsafeRow row)
    {
        Object[] values = new Object[FLAT.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = row.isNullAt(i) ? null : row.get(i, FLAT.fields()[i].dataType());
        }
        return new GenericInternalRow(values);
    }

    private static List<byte[]> blocks(MapOutputEncoder encoder, int partitions)
    {
        List<byte[]> blocks = new ArrayList<>();
        for (int partition = 0; partition < partitions; partition++) {
            ByteBuffer block = ByteBuffer.allocate((int) encoder.blockLength(partition));
            if (block.capacity() > 0) {
                encoder.writeBlock(partition, block);
            }
            blocks.add(block.array());
        }
        return blocks;
    }
}
