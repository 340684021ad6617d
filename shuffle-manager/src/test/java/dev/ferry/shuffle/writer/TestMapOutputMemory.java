package dev.ferry.shuffle.writer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import dev.ferry.shuffle.format.ChecksumAlgorithm;
import dev.ferry.shuffle.format.CompressionKind;
import dev.ferry.shuffle.format.EncodingSettings;
import dev.ferry.shuffle.format.MapOutputEncoder;
import dev.ferry.shuffle.format.NonSpillingConsumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.spark.SparkConf;
import org.apache.spark.memory.MemoryMode;
import org.apache.spark.memory.TaskMemoryManager;
import org.apache.spark.memory.UnifiedMemoryManager;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The map task's payloads in Spark's own accounting: a real TaskMemoryManager over a small
 * execution pool; another consumer of the same task that asks for more than is free makes
 * Ferry's encoder spill, and gets the memory it gave back.
 */
class TestMapOutputMemory
{
    private static final long POOL = 8L << 20;

    @TempDir
    Path spillDirectory;

    @Test
    void anotherConsumerShortOfMemoryMakesTheEncoderSpill()
            throws IOException
    {
        UnifiedMemoryManager pool = new UnifiedMemoryManager(new SparkConf(), POOL, POOL / 8, 1);
        TaskMemoryManager task = new TaskMemoryManager(pool, 1);
        StructType schema = new StructType().add("k", DataTypes.LongType).add("s", DataTypes.StringType);
        UnsafeProjection projection = UnsafeProjection.create(schema);
        EncodingSettings settings = new EncodingSettings(CompressionKind.NONE, 1, 64, 64 * 1024, 1 << 20, ChecksumAlgorithm.CRC32);
        MapOutputMemory memory = new MapOutputMemory(task);
        Path spill = spillDirectory.resolve("task.spill");
        try (BufferAllocator allocator = new RootAllocator();
                MapOutputEncoder encoder = new MapOutputEncoder(schema, 4, allocator, settings, memory, () -> spill)) {
            memory.attach(encoder);
            for (int i = 0; i < 60_000; i++) {
                encoder.append(i % 4, projection.apply(new GenericInternalRow(new Object[] {(long) i, UTF8String.fromString("value-" + i)})));
            }
            long held = memory.getUsed();
            assertTrue(held > POOL / 4, "the payloads were accounted as execution memory: " + held);
            assertEquals(held, task.getMemoryConsumptionForThisTask());

            NonSpillingConsumer other = new NonSpillingConsumer(task, MemoryMode.ON_HEAP);
            long wanted = POOL - POOL / 8;
            assertEquals(wanted, other.acquireMemory(wanted), "the other consumer got what Ferry gave back");
            assertEquals(0, memory.getUsed(), "Ferry holds nothing after its spill");
            assertEquals(1, encoder.spills());
            assertTrue(encoder.diskBytesSpilled() >= held / 2, "the payloads went to disk: " + encoder.diskBytesSpilled());
            assertTrue(Files.size(spill) > 0);
            other.freeMemory(wanted);
            encoder.finish();
        }
        assertEquals(0, memory.getUsed(), "closing the encoder gave back what it held");
        assertEquals(0, task.cleanUpAllAllocatedMemory(), "nothing left for Spark to reclaim at task end");
    }
}
