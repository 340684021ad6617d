package dev.ferry.shuffle.reader;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import dev.ferry.shuffle.ExchangeMetrics;
import dev.ferry.shuffle.PeerEndpoints;
import dev.ferry.shuffle.format.ChecksumAlgorithm;
import dev.ferry.shuffle.format.CompressionKind;
import dev.ferry.shuffle.format.EncodingSettings;
import dev.ferry.shuffle.format.MapOutputEncoder;
import dev.ferry.shuffle.format.NonSpillingConsumer;
import dev.ferry.shuffle.store.HostMapOutputStore;
import dev.ferry.shuffle.store.MapOutputId;
import dev.ferry.shuffle.transport.FetchedBlocks;
import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.ShuffleTransport;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.spark.FetchFailed;
import org.apache.spark.SparkConf;
import org.apache.spark.memory.MemoryMode;
import org.apache.spark.memory.TaskMemoryManager;
import org.apache.spark.memory.UnifiedMemoryManager;
import org.apache.spark.shuffle.FetchFailedException;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.storage.BlockManagerId;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.Option;
import scala.Product2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The reduce side's block stream against a real host store and an in-memory fake transport. */
class TestColumnarBlockIterator
{
    private static final StructType SCHEMA = new StructType().add("id", DataTypes.LongType).add("name", DataTypes.StringType);
    private static final EncodingSettings ENCODING = new EncodingSettings(CompressionKind.ZSTD, 1, 64, 1 << 20, 16 << 20, ChecksumAlgorithm.CRC32C);
    private static final int SHUFFLE = 4;

    @TempDir
    Path spill;
    private BufferAllocator allocator;
    private HostMapOutputStore store;
    private final Map<ShuffleBlockRef, byte[]> remoteBlocks = new HashMap<>();
    // Filled from the fetch threads.
    private final List<List<ShuffleBlockRef>> requests = Collections.synchronizedList(new ArrayList<>());
    private final ExecutorService fetchThreads = Executors.newCachedThreadPool();
    private IOException transportFailure;
    // Fallback steps the fake transport reports with its next answer (then none).
    private List<String> nextFallbacks = List.of();

    private final BlockManagerId local = BlockManagerId.apply("local-exec", "host-a", 7000, Option.empty());
    private final BlockManagerId remote = PeerEndpoints.withTcpPort(BlockManagerId.apply("remote-exec", "host-b", 7001, Option.empty()), 9999);

    @BeforeEach
    void setUp()
    {
        allocator = new RootAllocator();
        store = new HostMapOutputStore(allocator.newChildAllocator("store", 0, Long.MAX_VALUE), 1 << 20, spill);
    }

    @AfterEach
    void tearDown()
    {
        fetchThreads.shutdownNow();
        store.close();
        assertEquals(0, allocator.getAllocatedMemory(), "no Arrow memory leaked");
        allocator.close();
    }

    /** Encodes {@code rows} rows (ids from {@code firstId}) into reduce partition 0 of a two-partition map output. */
    private static MapOutputEncoder encode(BufferAllocator allocator, long firstId, int rows)
            throws IOException
    {
        MapOutputEncoder encoder = new MapOutputEncoder(SCHEMA, 2, allocator, ENCODING);
        for (long id = firstId; id < firstId + rows; id++) {
            encoder.append(0, new GenericInternalRow(new Object[] {id, UTF8String.fromString("row-" + id)}));
        }
        encoder.finish();
        return encoder;
    }

    private void storeLocal(long mapId, long firstId, int rows)
            throws IOException
    {
        try (BufferAllocator encoding = allocator.newChildAllocator("encode", 0, Long.MAX_VALUE); MapOutputEncoder encoder = encode(encoding, firstId, rows)) {
            store.commit(new MapOutputId(SHUFFLE, mapId, (int) mapId, 0), encoder);
        }
    }

    private byte[] remoteBlock(long firstId, int rows)
            throws IOException
    {
        try (BufferAllocator encoding = allocator.newChildAllocator("encode", 0, Long.MAX_VALUE); MapOutputEncoder encoder = encode(encoding, firstId, rows)) {
            ByteBuffer block = ByteBuffer.allocate((int) encoder.blockLength(0));
            encoder.writeBlock(0, block);
            return block.array();
        }
    }

    private ShuffleTransport fakeTransport()
    {
        return new AnsweringTransport()
        {
            @Override
            byte[] bytesOf(ShuffleBlockRef ref)
            {
                return remoteBlocks.get(ref);
            }

            @Override
            void beforeAnswer(PeerAddress peer, List<ShuffleBlockRef> blocks)
                    throws IOException
            {
                assertEquals(new PeerAddress("remote-exec", "host-b", 9999), peer);
                requests.add(blocks);
                if (transportFailure != null) {
                    throw transportFailure;
                }
            }

            @Override
            FetchedBlocks answer(FetchedBlocks fetched)
            {
                List<String> steps = nextFallbacks;
                nextFallbacks = List.of();
                return fetched.withFallbacks(steps);
            }
        };
    }

    private ColumnarBlockIterator iterator(BufferAllocator reduce, List<PendingBlock> localBlocks, List<PendingBlock> remote, long maxBytesInFlight,
            CountingReadMetrics metrics, ExchangeMetrics exchangeMetrics)
    {
        Map<BlockManagerId, List<PendingBlock>> byPeer = new LinkedHashMap<>();
        if (!remote.isEmpty()) {
            byPeer.put(this.remote, remote);
        }
        return new ColumnarBlockIterator(SHUFFLE, "local-exec", store, fakeTransport(), reduce, SCHEMA, localBlocks,
                FerryShuffleReader.requests(byPeer, maxBytesInFlight), maxBytesInFlight, fetchThreads, metrics, exchangeMetrics, null);
    }

    private static List<Long> drain(ColumnarBlockIterator iterator)
    {
        List<Long> ids = new ArrayList<>();
        while (iterator.hasNext()) {
            Product2<Object, Object> record = iterator.next();
            ColumnarBatch batch = (ColumnarBatch) record._2();
            for (int row = 0; row < batch.numRows(); row++) {
                ids.add(batch.column(0).getLong(row));
                assertEquals("row-" + batch.column(0).getLong(row), batch.column(1).getUTF8String(row).toString());
            }
        }
        return ids;
    }

    @Test
    void readsLocalAndRemoteBlocksWithBoundedRequests()
            throws IOException
    {
        storeLocal(1, 0, 100);
        storeLocal(2, 100, 50);
        List<PendingBlock> remote = new ArrayList<>();
        for (int map = 10; map < 14; map++) {
            ShuffleBlockRef ref = new ShuffleBlockRef(SHUFFLE, map, 0);
            remoteBlocks.put(ref, remoteBlock(1000L * map, 20));
            remote.add(new PendingBlock(this.remote, ref, remoteBlocks.get(ref).length, map));
        }
        long blockSize = remoteBlocks.values().iterator().next().length;
        CountingReadMetrics metrics = new CountingReadMetrics();
        ExchangeMetrics exchangeMetrics = ExchangeMetrics.unregistered();
        try (BufferAllocator reduce = allocator.newChildAllocator("reduce", 0, Long.MAX_VALUE)) {
            try (ColumnarBlockIterator iterator = iterator(reduce, List.of(new PendingBlock(local, new ShuffleBlockRef(SHUFFLE, 1, 0), 0, 1),
                    new PendingBlock(local, new ShuffleBlockRef(SHUFFLE, 2, 0), 0, 2)), remote, 5 * (2 * blockSize + 1), metrics, exchangeMetrics)) {
                List<Long> ids = drain(iterator);
                assertEquals(150 + 80, ids.size());
                assertTrue(ids.contains(0L) && ids.contains(149L) && ids.contains(13019L));
            }
        }
        // Requests of at most a fifth of maxBytesInFlight, here two blocks' bytes: four remote blocks take two requests.
        assertEquals(2, requests.size());
        requests.forEach(request -> assertEquals(2, request.size()));
        assertEquals(230, metrics.records);
        assertEquals(2, metrics.localBlocks);
        assertEquals(4, metrics.remoteBlocks);
        assertEquals(4 * blockSize, metrics.remoteBytes);
        assertEquals(4, exchangeMetrics.routeMetrics().get(ExchangeMetrics.routeBlocksKey("TCP")).value());
        assertEquals(metrics.localBytes, exchangeMetrics.routeMetrics().get(ExchangeMetrics.routeBytesKey("LOCAL")).value());
    }

    @Test
    void theFallbackStepsAFetchTookAreCountedInTheExchangesMetrics()
            throws IOException
    {
        List<PendingBlock> remote = new ArrayList<>();
        for (int map = 20; map < 24; map++) {
            ShuffleBlockRef ref = new ShuffleBlockRef(SHUFFLE, map, 0);
            remoteBlocks.put(ref, remoteBlock(1000L * map, 10));
            remote.add(new PendingBlock(this.remote, ref, remoteBlocks.get(ref).length, map));
        }
        long blockSize = remoteBlocks.values().iterator().next().length;
        nextFallbacks = List.of("HOST_SHM->TCP");
        ExchangeMetrics exchangeMetrics = ExchangeMetrics.unregistered();
        try (BufferAllocator reduce = allocator.newChildAllocator("reduce", 0, Long.MAX_VALUE);
                ColumnarBlockIterator iterator = iterator(reduce, List.of(), remote, 2 * blockSize + 1, new CountingReadMetrics(), exchangeMetrics)) {
            assertEquals(40, drain(iterator).size());
        }
        assertTrue(requests.size() >= 2, "several requests, only the first of which fell back: " + requests);
        assertEquals(1, exchangeMetrics.routeFallbacks().value());
        for (String step : ExchangeMetrics.FALLBACK_STEPS) {
            assertEquals(step.equals("HOST_SHM->TCP") ? 1 : 0, exchangeMetrics.fallbackMetrics().get(ExchangeMetrics.fallbackKey(step)).value(), step);
        }
        assertEquals(List.of("NVLINK->HOST_STAGED", "PCIE_P2P->HOST_STAGED", "PEER_GPU_D2H->HOST_STAGED", "HOST_STAGED->TCP", "HOST_SHM->TCP",
                "GPUDIRECT_RDMA->RDMA_HOST_STAGED", "RDMA_HOST_STAGED->TCP", "RDMA->TCP"), ExchangeMetrics.FALLBACK_STEPS, "the route policy's chain");
        assertEquals("ferryFallbackGPUDIRECT_RDMAToRDMA_HOST_STAGED", ExchangeMetrics.fallbackKey("GPUDIRECT_RDMA->RDMA_HOST_STAGED"));
    }

    @Test
    void aMissingLocalOutputIsAFetchFailureOfThatMapOutput()
    {
        try (BufferAllocator reduce = allocator.newChildAllocator("reduce", 0, Long.MAX_VALUE);
                ColumnarBlockIterator iterator = iterator(reduce, List.of(new PendingBlock(local, new ShuffleBlockRef(SHUFFLE, 77, 1), 10, 5)), List.of(),
                        1 << 20, new CountingReadMetrics(), ExchangeMetrics.unregistered())) {
            FetchFailedException thrown = assertThrows(FetchFailedException.class, iterator::hasNext);
            FetchFailed failure = (FetchFailed) thrown.toTaskFailedReason();
            assertEquals(local, failure.bmAddress());
            assertEquals(SHUFFLE, failure.shuffleId());
            assertEquals(77, failure.mapId());
            assertEquals(5, failure.mapIndex());
            assertEquals(1, failure.reduceId());
        }
    }

    @Test
    void aFailedTransportIsAFetchFailureOfTheRequestedOutput()
            throws IOException
    {
        ShuffleBlockRef ref = new ShuffleBlockRef(SHUFFLE, 31, 0);
        remoteBlocks.put(ref, remoteBlock(0, 5));
        transportFailure = new IOException("Connection to executor remote-exec closed");
        try (BufferAllocator reduce = allocator.newChildAllocator("reduce", 0, Long.MAX_VALUE);
                ColumnarBlockIterator iterator = iterator(reduce, List.of(), List.of(new PendingBlock(remote, ref, 100, 3)), 1 << 20,
                        new CountingReadMetrics(), ExchangeMetrics.unregistered())) {
            FetchFailedException thrown = assertThrows(FetchFailedException.class, iterator::hasNext);
            FetchFailed failure = (FetchFailed) thrown.toTaskFailedReason();
            assertEquals(remote, failure.bmAddress());
            assertEquals(31, failure.mapId());
            assertEquals(3, failure.mapIndex());
            assertTrue(thrown.getMessage().contains("closed"), thrown.getMessage());
        }
    }

    /**
     * With Spark's memory off-heap the fetched blocks are a consumer of the task's off-heap pool: a
     * consumer of the same task short of memory makes the reader give back the blocks fetched and
     * not yet opened, which are fetched again in their turn, and every row still arrives in order.
     */
    @Test
    void anotherConsumerShortOfOffHeapMemoryMakesTheReaderGiveBackQueuedBlocks()
            throws IOException
    {
        List<PendingBlock> remote = new ArrayList<>();
        for (int map = 20; map < 24; map++) {
            ShuffleBlockRef ref = new ShuffleBlockRef(SHUFFLE, map, 0);
            remoteBlocks.put(ref, remoteBlock(1000L * map, 500));
            remote.add(new PendingBlock(this.remote, ref, remoteBlocks.get(ref).length, map));
        }
        long pool = 1L << 20;
        SparkConf conf = new SparkConf().set("spark.memory.offHeap.enabled", "true").set("spark.memory.offHeap.size", String.valueOf(pool));
        TaskMemoryManager task = new TaskMemoryManager(new UnifiedMemoryManager(conf, 64L << 20, 32L << 20, 1), 7);
        try (BufferAllocator reduce = allocator.newChildAllocator("reduce", 0, Long.MAX_VALUE);
                ColumnarBlockIterator iterator = iterator(reduce, List.of(), remote, Long.MAX_VALUE, new CountingReadMetrics(), ExchangeMetrics.unregistered())) {
            FetchedBlockMemory memory = new FetchedBlockMemory(task, iterator);
            iterator.account(memory);
            List<Long> ids = new ArrayList<>();
            assertTrue(iterator.hasNext());
            ColumnarBatch first = (ColumnarBatch) iterator.next()._2();
            for (int row = 0; row < first.numRows(); row++) {
                ids.add(first.column(0).getLong(row));
            }
            long held = memory.getUsed();
            assertTrue(held > 0, "the four fetched blocks were accounted");
            NonSpillingConsumer other = new NonSpillingConsumer(task, MemoryMode.OFF_HEAP);
            long wanted = pool - held / 4 * 2;
            long granted = other.acquireMemory(wanted);
            assertEquals(wanted, granted, "the other consumer got what the reader gave back");
            assertTrue(memory.getUsed() < held, "the queued blocks were given back");
            assertEquals(3, iterator.refetchedBlocks(), "the three blocks not yet opened go back to their peer");
            other.freeMemory(granted);
            ids.addAll(drain(iterator));
            List<Long> expected = new ArrayList<>();
            for (int map = 20; map < 24; map++) {
                for (long id = 1000L * map; id < 1000L * map + 500; id++) {
                    expected.add(id);
                }
            }
            assertEquals(expected, ids, "every row, in block order, once");
            assertEquals(0, memory.getUsed(), "all given back at the end of the stream");
        }
        assertEquals(2, requests.size(), "one request, then the given-back blocks fetched again");
        assertEquals(3, requests.get(1).size());
        assertEquals(0, task.cleanUpAllAllocatedMemory());
    }

    /**
     * A task whose blocks need more Arrow memory than spark.ferry.shuffle.task.arrowLimitBytes
     * fails naming the key: the map outputs are fine, so it is never a fetch failure (which would
     * rerun the map stage for nothing).
     */
    @Test
    void theTaskArrowLimitFailsNamingTheKeyNotAsAFetchFailure()
            throws IOException
    {
        ShuffleBlockRef ref = new ShuffleBlockRef(SHUFFLE, 41, 0);
        remoteBlocks.put(ref, remoteBlock(0, 20_000));
        try (BufferAllocator reduce = allocator.newChildAllocator("reduce", 0, 4096);
                ColumnarBlockIterator iterator = iterator(reduce, List.of(), List.of(new PendingBlock(remote, ref, 100, 3)), 1 << 20,
                        new CountingReadMetrics(), ExchangeMetrics.unregistered())) {
            IllegalStateException thrown = assertThrows(IllegalStateException.class, iterator::hasNext);
            assertTrue(thrown.getMessage().contains("spark.ferry.shuffle.task.arrowLimitBytes"), thrown.getMessage());
        }
    }

    @Test
    void aCorruptRemoteBlockIsAFetchFailureNeverData()
            throws IOException
    {
        ShuffleBlockRef ref = new ShuffleBlockRef(SHUFFLE, 41, 0);
        byte[] block = remoteBlock(0, 50);
        block[block.length / 2] ^= 0x01;
        remoteBlocks.put(ref, block);
        ExchangeMetrics exchangeMetrics = ExchangeMetrics.unregistered();
        CountingReadMetrics metrics = new CountingReadMetrics();
        try (BufferAllocator reduce = allocator.newChildAllocator("reduce", 0, Long.MAX_VALUE);
                ColumnarBlockIterator iterator = iterator(reduce, List.of(), List.of(new PendingBlock(remote, ref, block.length, 8)), 1 << 20, metrics, exchangeMetrics)) {
            FetchFailedException thrown = assertThrows(FetchFailedException.class, iterator::hasNext);
            FetchFailed failure = (FetchFailed) thrown.toTaskFailedReason();
            assertEquals(41, failure.mapId());
            assertEquals(8, failure.mapIndex());
            assertTrue(thrown.getMessage().contains("checksum"), thrown.getMessage());
        }
        assertEquals(0, metrics.records, "no row of a corrupt block is returned");
        assertEquals(1, exchangeMetrics.corruptBlocks().value());
    }
}
