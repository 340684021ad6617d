package dev.ferry.shuffle.format;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Rows through the map-side encoder and back through the block decoder, compared byte for byte as UnsafeRows. */
class TestBlockRoundTrip
{
    private static final EncodingSettings SMALL_BATCHES = settings(CompressionKind.LZ4, ChecksumAlgorithm.CRC32C, 2048);

    static EncodingSettings settings(CompressionKind compression, ChecksumAlgorithm checksum, long batchTarget)
    {
        return new EncodingSettings(compression, 1, 64, batchTarget, 64L << 20, checksum);
    }

    // AUTO is a setting resolved to LZ4 or ZSTD before a map task writes (TestCodecForLink), not a codec.
    @ParameterizedTest
    @EnumSource(value = CompressionKind.class, mode = EnumSource.Mode.EXCLUDE, names = "AUTO")
    void everyTypeSurvivesEveryCodec(CompressionKind compression)
            throws IOException
    {
        List<UnsafeRow> rows = TestingRows.random(TestingRows.ALL_TYPES, 3000, 7);
        List<List<UnsafeRow>> decoded = roundTrip(TestingRows.ALL_TYPES, rows, 5, settings(compression, ChecksumAlgorithm.ADLER32, 16 * 1024));
        assertPartitionsMatch(rows, 5, decoded);
    }

    /**
     * A memory budget and batch target far below the task's data: partitions are flushed many
     * times, each block holds many batches, and every partition still gets exactly its rows in
     * arrival order, with all Arrow memory released at the end.
     */
    @ParameterizedTest
    @EnumSource(value = CompressionKind.class, names = {"NONE", "LZ4"})
    void smallBudgetsFlushRepeatedlyAndKeepRowOrder(CompressionKind compression)
            throws IOException
    {
        List<UnsafeRow> rows = TestingRows.random(TestingRows.ALL_TYPES, 5000, 21);
        EncodingSettings tight = new EncodingSettings(compression, 1, 64, 8 * 1024, 256 * 1024, ChecksumAlgorithm.CRC32);
        assertPartitionsMatch(rows, 7, roundTrip(TestingRows.ALL_TYPES, rows, 7, tight));
        try (BufferAllocator allocator = new RootAllocator();
                MapOutputEncoder encoder = new MapOutputEncoder(TestingRows.ALL_TYPES, 7, allocator, tight)) {
            for (int i = 0; i < rows.size(); i++) {
                encoder.append(i % 7, rows.get(i));
            }
            // The shuffle write time: batches serialized while appending, then the last ones at finish.
            long serializedWhileAppending = encoder.serializeNanos();
            assertTrue(serializedWhileAppending > 0, "the batches flushed while appending were timed");
            encoder.finish();
            assertTrue(encoder.serializeNanos() > serializedWhileAppending, "finish's batches were timed too");
            assertEquals(0, allocator.getAllocatedMemory(), "finish released every open batch");
            assertEquals(rows.size(), encoder.records());
            ByteBuffer block = ByteBuffer.allocate((int) encoder.blockLength(3));
            encoder.writeBlock(3, block);
            BlockHeader header = BlockHeader.readFrom(ByteBuffer.wrap(block.array(), 0, BlockHeader.LENGTH), block.capacity());
            assertTrue(header.batches() > 1, "batches in one block: " + header.batches());
            assertEquals(rows.size() / 7 + (3 < rows.size() % 7 ? 1 : 0), header.rows());
        }
    }

    @Test
    void compressionShrinksRepetitiveDataAndSkipsTinyBuffers()
            throws IOException
    {
        StructType schema = new StructType().add("k", DataTypes.LongType).add("s", DataTypes.StringType);
        List<UnsafeRow> rows = new ArrayList<>();
        org.apache.spark.sql.catalyst.expressions.UnsafeProjection projection = org.apache.spark.sql.catalyst.expressions.UnsafeProjection.create(schema);
        for (int i = 0; i < 20000; i++) {
            rows.add(projection.apply( new org.apache.spark.sql.catalyst.expressions.GenericInternalRow(new Object[] {(long) (i % 4),
                    org.apache.spark.unsafe.types.UTF8String.fromString("repeated-value-" + (i % 3))})).copy());
        }
        long plain = encodedBytes(schema, rows, settings(CompressionKind.NONE, ChecksumAlgorithm.NONE, 1 << 20));
        long lz4 = encodedBytes(schema, rows, settings(CompressionKind.LZ4, ChecksumAlgorithm.NONE, 1 << 20));
        long zstd = encodedBytes(schema, rows, settings(CompressionKind.ZSTD, ChecksumAlgorithm.NONE, 1 << 20));
        assertTrue(lz4 * 3 < plain, "lz4 " + lz4 + " vs plain " + plain);
        assertTrue(zstd * 3 < plain, "zstd " + zstd + " vs plain " + plain);
    }

    /**
     * The map status carries each block's Arrow size before compression (what AQE coalesces and
     * splits by), never less than the stored block, and 0 exactly for the partitions without rows.
     */
    @Test
    void plannedSizesAreUncompressedAndZeroOnlyForEmptyPartitions()
            throws IOException
    {
        List<UnsafeRow> rows = TestingRows.random(TestingRows.ALL_TYPES, 3000, 8);
        try (BufferAllocator allocator = new RootAllocator();
                MapOutputEncoder encoder = new MapOutputEncoder(TestingRows.ALL_TYPES, 5, allocator, settings(CompressionKind.ZSTD, ChecksumAlgorithm.CRC32C, 1 << 20))) {
            for (int i = 0; i < rows.size(); i++) {
                // Partition 2 gets no rows.
                encoder.append(i % 4 == 2 ? 4 : i % 4, rows.get(i));
            }
            encoder.finish();
            long[] planned = encoder.plannedSizes();
            long plannedTotal = 0;
            for (int partition = 0; partition < 5; partition++) {
                long stored = encoder.blockLength(partition);
                assertEquals(stored == 0, planned[partition] == 0, "partition " + partition);
                assertTrue(planned[partition] >= stored, "partition " + partition + ": " + planned[partition] + " < " + stored);
                plannedTotal += planned[partition];
            }
            assertEquals(0, planned[2]);
            assertEquals(encoder.uncompressedBytes(), plannedTotal, "the zstd blocks are smaller than their Arrow buffers");
            assertTrue(plannedTotal > java.util.Arrays.stream(encoder.blockLengths()).sum(), "planned sizes are the uncompressed ones");
        }
    }

    @ParameterizedTest
    @EnumSource(value = CompressionKind.class, names = {"LZ4", "ZSTD"})
    void buffersBelowTheMinimumAreSentRaw(CompressionKind kind)
    {
        try (BufferAllocator allocator = new RootAllocator()) {
            for (int minimum : new int[] {0, 512}) {
                org.apache.arrow.vector.compression.CompressionCodec codec = BufferCodecs.forWriting(kind, minimum, 1);
                ArrowBuf zeros = allocator.buffer(100);
                zeros.setZero(0, 100);
                zeros.writerIndex(100);
                ArrowBuf compressed = codec.compress(allocator, zeros);
                long prefix = compressed.getLong(0);
                // Arrow's framing: the uncompressed length, or -1 for a buffer sent as it is.
                assertEquals(minimum == 0 ? 100 : -1, prefix, kind + " with minimum " + minimum);
                // decompress consumes the compressed buffer's reference.
                try (ArrowBuf restored = BufferCodecs.READER.createCodec(codec.getCodecType()).decompress(allocator, compressed)) {
                    assertEquals(100, restored.writerIndex());
                    for (int i = 0; i < 100; i++) {
                        assertEquals(0, restored.getByte(i));
                    }
                }
            }
        }
    }

    @Test
    void blocksDecodeOneAfterAnotherIntoOneRoot()
            throws IOException
    {
        StructType schema = TestingRows.ALL_TYPES;
        List<UnsafeRow> first = TestingRows.random(schema, 700, 11);
        List<UnsafeRow> second = TestingRows.random(schema, 500, 12);
        byte[] firstBlock = encodeSinglePartition(schema, first, SMALL_BATCHES);
        byte[] secondBlock = encodeSinglePartition(schema, second, SMALL_BATCHES);
        try (BufferAllocator allocator = new RootAllocator()) {
            List<UnsafeRow> decoded = decodeAll(allocator, schema, List.of(firstBlock, secondBlock));
            List<UnsafeRow> expected = new ArrayList<>(first);
            expected.addAll(second);
            assertEquals(expected, decoded);
        }
    }

    @Test
    void zeroColumnsCarryRowCounts()
            throws IOException
    {
        StructType schema = new StructType();
        List<UnsafeRow> rows = new ArrayList<>();
        UnsafeRow empty = TestingRows.unsafe(schema, new org.apache.spark.sql.catalyst.expressions.GenericInternalRow(0));
        for (int i = 0; i < 1000; i++) {
            rows.add(empty);
        }
        List<List<UnsafeRow>> decoded = roundTrip(schema, rows, 3, SMALL_BATCHES);
        assertEquals(1000, decoded.stream().mapToInt(List::size).sum());
    }

    @ParameterizedTest
    @EnumSource(value = ChecksumAlgorithm.class, names = {"ADLER32", "CRC32", "CRC32C"})
    void everyFlippedByteIsDetected(ChecksumAlgorithm checksum)
            throws IOException
    {
        StructType schema = new StructType().add("id", DataTypes.LongType).add("s", DataTypes.StringType);
        List<UnsafeRow> rows = TestingRows.random(schema, 50, 3);
        byte[] block = encodeSinglePartition(schema, rows, settings(CompressionKind.NONE, checksum, 1 << 20));
        try (BufferAllocator allocator = new RootAllocator()) {
            for (int position = 0; position < block.length; position += 3) {
                byte[] corrupt = block.clone();
                corrupt[position] ^= 0x10;
                assertThrows(CorruptBlockException.class, () -> decodeAll(allocator, schema, corrupt), "flip at byte " + position);
            }
            byte[] truncated = java.util.Arrays.copyOf(block, block.length - 1);
            assertThrows(CorruptBlockException.class, () -> decodeAll(allocator, schema, truncated));
            assertEquals(rows.size(), decodeAll(allocator, schema, block).size());
        }
    }

    // ---- helpers ----

    private static long encodedBytes(StructType schema, List<UnsafeRow> rows, EncodingSettings settings)
            throws IOException
    {
        return encodeSinglePartition(schema, rows, settings).length;
    }

    static byte[] encodeSinglePartition(StructType schema, List<UnsafeRow> rows, EncodingSettings settings)
            throws IOException
    {
        try (BufferAllocator allocator = new RootAllocator();
                MapOutputEncoder encoder = new MapOutputEncoder(schema, 1, allocator, settings)) {
            for (UnsafeRow row : rows) {
                encoder.append(0, row);
            }
            encoder.finish();
            ByteBuffer block = ByteBuffer.allocate((int) encoder.blockLength(0));
            encoder.writeBlock(0, block);
            assertEquals(0, allocator.getAllocatedMemory(), "encoder released its Arrow memory");
            return block.array();
        }
    }

    static List<UnsafeRow> decodeAll(BufferAllocator allocator, StructType schema, byte[] block)
            throws CorruptBlockException
    {
        return decodeAll(allocator, schema, List.of(block));
    }

    /** Decodes blocks one after another into one root, as a reduce task does. */
    static List<UnsafeRow> decodeAll(BufferAllocator allocator, StructType schema, List<byte[]> blocks)
            throws CorruptBlockException
    {
        List<UnsafeRow> rows = new ArrayList<>();
        org.apache.spark.sql.catalyst.expressions.UnsafeProjection projection = org.apache.spark.sql.catalyst.expressions.UnsafeProjection.create(schema);
        try (VectorSchemaRoot root = VectorSchemaRoot.create(ArrowSchemas.toArrow(schema), allocator)) {
            List<FieldVector> vectors = root.getFieldVectors();
            ColumnVector[] columns = new ColumnVector[vectors.size()];
            for (int i = 0; i < columns.length; i++) {
                columns[i] = new ArrowColumnVector(vectors.get(i));
            }
            ColumnarBatch batch = new ColumnarBatch(columns, 0);
            for (byte[] block : blocks) {
                ArrowBuf buffer = allocator.buffer(block.length);
                buffer.setBytes(0, block);
                try (BlockDecoder decoder = new BlockDecoder(buffer, block.length)) {
                    while (decoder.loadNext(root)) {
                        batch.setNumRows(root.getRowCount());
                        for (int i = 0; i < root.getRowCount(); i++) {
                            rows.add(projection.apply(batch.getRow(i)).copy());
                        }
                    }
                }
            }
        }
        return rows;
    }

    /** Deals rows round-robin into {@code partitions}, encodes, decodes each block. */
    static List<List<UnsafeRow>> roundTrip(StructType schema, List<UnsafeRow> rows, int partitions, EncodingSettings settings)
            throws IOException
    {
        try (BufferAllocator allocator = new RootAllocator()) {
            List<byte[]> blocks = new ArrayList<>();
            try (BufferAllocator encoding = allocator.newChildAllocator("encode", 0, Long.MAX_VALUE);
                    MapOutputEncoder encoder = new MapOutputEncoder(schema, partitions, encoding, settings)) {
                for (int i = 0; i < rows.size(); i++) {
                    encoder.append(i % partitions, rows.get(i));
                }
                encoder.finish();
                for (int partition = 0; partition < partitions; partition++) {
                    ByteBuffer block = ByteBuffer.allocate((int) encoder.blockLength(partition));
                    if (block.capacity() > 0) {
                        encoder.writeBlock(partition, block);
                    }
                    blocks.add(block.array());
                }
            }
            List<List<UnsafeRow>> decoded = new ArrayList<>();
            for (byte[] block : blocks) {
                decoded.add(block.length == 0 ? List.of() : decodeAll(allocator, schema, block));
            }
            assertEquals(0, allocator.getAllocatedMemory(), "no Arrow memory leaked");
            return decoded;
        }
    }

    static void assertPartitionsMatch(List<UnsafeRow> rows, int partitions, List<List<UnsafeRow>> decoded)
    {
        for (int partition = 0; partition < partitions; partition++) {
            List<UnsafeRow> expected = new ArrayList<>();
            for (int i = partition; i < rows.size(); i += partitions) {
                expected.add(rows.get(i));
            }
            assertEquals(expected, decoded.get(partition), "partition " + partition);
        }
    }
}
