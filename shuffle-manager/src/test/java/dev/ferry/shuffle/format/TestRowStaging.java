package dev.ferry.shuffle.format;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The map side's row stage: rows staged and grouped by partition must come out of the blocks
 * exactly as rows appended directly to per-partition batches do, in arrival order per partition,
 * through stage refills, rows larger than a page, empty partitions, and input mixing UnsafeRows
 * with other rows.
 */
class TestRowStaging
{
    @ParameterizedTest
    @ValueSource(longs = {256 << 10, 64L << 20})
    void stagedBlocksEqualDirectBlocks(long budget)
            throws IOException
    {
        List<UnsafeRow> rows = TestingRows.random(TestingRows.ALL_TYPES, 6000, 31);
        int[] partitionOf = skewedPartitions(rows.size(), 9, 5);
        EncodingSettings staged = new EncodingSettings(CompressionKind.LZ4, 1, 64, 16 * 1024, budget, ChecksumAlgorithm.CRC32C, true);
        Encoded withStage = encode(TestingRows.ALL_TYPES, rows, partitionOf, 9, staged);
        Encoded direct = encode(TestingRows.ALL_TYPES, rows, partitionOf, 9, staged.withRowStaging(false));
        assertEquals(0, direct.stageFlushes);
        if (budget < 1 << 20) {
            // About 1.5 MB of rows through a 224 KiB stage: a handful of refills, not one per row once the pages exist.
            assertTrue(withStage.stageFlushes > 0 && withStage.stageFlushes < 20, "a small budget refills the stage: " + withStage.stageFlushes);
        }
        assertTrue(withStage.batches <= direct.batches, "staged " + withStage.batches + " batches, direct " + direct.batches);
        List<List<UnsafeRow>> expected = byPartition(rows, partitionOf, 9);
        assertEquals(expected, decode(TestingRows.ALL_TYPES, withStage.blocks));
        assertEquals(expected, decode(TestingRows.ALL_TYPES, direct.blocks));
        for (int partition : new int[] {5, 6, 7, 8}) {
            assertEquals(0, withStage.blocks.get(partition).length, "partition " + partition + " got no rows and has no block");
        }
    }

    /** Staged rows are grouped into far fewer, larger batches than per-partition open batches make. */
    @Test
    void stagingBuildsLargerBatches()
            throws IOException
    {
        StructType schema = new StructType().add("id", DataTypes.LongType).add("s", DataTypes.StringType);
        List<UnsafeRow> rows = TestingRows.random(schema, 20000, 5);
        int[] partitionOf = skewedPartitions(rows.size(), 200, 200);
        EncodingSettings settings = new EncodingSettings(CompressionKind.NONE, 1, 64, 1 << 20, 4L << 20, ChecksumAlgorithm.CRC32, true);
        Encoded staged = encode(schema, rows, partitionOf, 200, settings);
        Encoded direct = encode(schema, rows, partitionOf, 200, settings.withRowStaging(false));
        assertTrue(staged.batches < direct.batches, "staged " + staged.batches + " batches, direct " + direct.batches);
        assertEquals(byPartition(rows, partitionOf, 200), decode(schema, staged.blocks));
    }

    @Test
    void rowsLargerThanAPageGetTheirOwn()
            throws IOException
    {
        StructType schema = new StructType().add("id", DataTypes.LongType).add("s", DataTypes.StringType);
        List<UnsafeRow> rows = new ArrayList<>();
        Random random = new Random(3);
        for (int i = 0; i < 60; i++) {
            // Some rows far above the 64 KiB pages a 256 KiB budget gets, some tiny.
            int length = i % 3 == 0 ? 100_000 + random.nextInt(200_000) : random.nextInt(50);
            rows.add(TestingRows.unsafe(schema, new GenericInternalRow(new Object[] {(long) i, UTF8String.fromString("x".repeat(length) + i)})));
        }
        int[] partitionOf = skewedPartitions(rows.size(), 4, 4);
        EncodingSettings settings = new EncodingSettings(CompressionKind.ZSTD, 1, 64, 64 * 1024, 256 << 10, ChecksumAlgorithm.CRC32, true);
        assertEquals(byPartition(rows, partitionOf, 4), decode(schema, encode(schema, rows, partitionOf, 4, settings).blocks));
    }

    /** Rows that are not UnsafeRows bypass the stage; every row still reaches its partition (order between the two kinds is not kept). */
    @Test
    void mixedRowKindsAllArrive()
            throws IOException
    {
        StructType schema = TestingRows.ALL_TYPES;
        List<UnsafeRow> rows = TestingRows.random(schema, 3000, 17);
        int[] partitionOf = skewedPartitions(rows.size(), 5, 5);
        List<InternalRow> input = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            input.add(i % 4 == 0 ? generic(schema, rows.get(i)) : rows.get(i));
        }
        EncodingSettings settings = new EncodingSettings(CompressionKind.LZ4, 1, 64, 16 * 1024, 512 << 10, ChecksumAlgorithm.CRC32, true);
        List<List<UnsafeRow>> decoded = decode(schema, encode(schema, input, partitionOf, 5, settings).blocks);
        List<List<UnsafeRow>> expected = byPartition(rows, partitionOf, 5);
        for (int partition = 0; partition < 5; partition++) {
            assertEquals(sorted(expected.get(partition)), sorted(decoded.get(partition)), "partition " + partition);
        }
    }

    // ---- helpers ----

    private record Encoded(List<byte[]> blocks, long stageFlushes, long batches) {}

    /** Partitions 0 to {@code used - 1} of {@code partitions}, skewed towards 0. */
    private static int[] skewedPartitions(int rows, int partitions, int used)
    {
        Random random = new Random(rows + partitions);
        int[] partitionOf = new int[rows];
        for (int i = 0; i < rows; i++) {
            partitionOf[i] = random.nextInt(4) == 0 ? 0 : random.nextInt(used);
        }
        return partitionOf;
    }

    private static Encoded encode(StructType schema, List<? extends InternalRow> rows, int[] partitionOf, int partitions, EncodingSettings settings)
            throws IOException
    {
        try (BufferAllocator allocator = new RootAllocator();
                MapOutputEncoder encoder = new MapOutputEncoder(schema, partitions, allocator, settings)) {
            for (int i = 0; i < rows.size(); i++) {
                encoder.append(partitionOf[i], rows.get(i));
            }
            encoder.finish();
            assertEquals(0, allocator.getAllocatedMemory(), "finish released the stage and every batch");
            List<byte[]> blocks = new ArrayList<>();
            long batches = 0;
            for (int partition = 0; partition < partitions; partition++) {
                ByteBuffer block = ByteBuffer.allocate((int) encoder.blockLength(partition));
                if (block.capacity() > 0) {
                    encoder.writeBlock(partition, block);
                    batches += BlockHeader.readFrom(ByteBuffer.wrap(block.array(), 0, BlockHeader.LENGTH), block.capacity()).batches();
                }
                blocks.add(block.array());
            }
            return new Encoded(blocks, encoder.stageFlushes(), batches);
        }
    }

    private static List<List<UnsafeRow>> decode(StructType schema, List<byte[]> blocks)
            throws IOException
    {
        try (BufferAllocator allocator = new RootAllocator()) {
            List<List<UnsafeRow>> decoded = new ArrayList<>();
            for (byte[] block : blocks) {
                decoded.add(block.length == 0 ? List.of() : TestBlockRoundTrip.decodeAll(allocator, schema, block));
            }
            return decoded;
        }
    }

    private static List<List<UnsafeRow>> byPartition(List<UnsafeRow> rows, int[] partitionOf, int partitions)
    {
        List<List<UnsafeRow>> expected = new ArrayList<>();
        for (int partition = 0; partition < partitions; partition++) {
            expected.add(new ArrayList<>());
        }
        for (int i = 0; i < rows.size(); i++) {
            expected.get(partitionOf[i]).add(rows.get(i));
        }
        return expected;
    }

    private static InternalRow generic(StructType schema, UnsafeRow row)
    {
        StructField[] fields = schema.fields();
        Object[] values = new Object[fields.length];
        for (int i = 0; i < fields.length; i++) {
            values[i] = row.isNullAt(i) ? null : row.get(i, fields[i].dataType());
        }
        return new GenericInternalRow(values);
    }

    private static List<UnsafeRow> sorted(List<UnsafeRow> rows)
    {
        List<UnsafeRow> copy = new ArrayList<>(rows);
        copy.sort(Comparator.comparingInt(UnsafeRow::hashCode).thenComparing(UnsafeRow::toString));
        return copy;
    }
}
