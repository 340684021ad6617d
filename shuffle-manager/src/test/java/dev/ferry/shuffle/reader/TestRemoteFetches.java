package dev.ferry.shuffle.reader;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import dev.ferry.shuffle.PeerEndpoints;
import dev.ferry.shuffle.store.BlockBytes;
import dev.ferry.shuffle.transport.FetchedBlocks;
import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.ShuffleTransport;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.spark.storage.BlockManagerId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import scala.Option;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A reduce task's overlapped remote fetches against a fake transport whose fetches can be held and watched. */
class TestRemoteFetches
{
    private static final int SHUFFLE = 3;
    private static final int BLOCK = 1000;

    private final BufferAllocator allocator = new RootAllocator();
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void tearDown()
    {
        threads.shutdownNow();
        assertEquals(0, allocator.getAllocatedMemory(), "every fetched block freed");
        allocator.close();
    }

    private static BlockManagerId peer(int index)
    {
        return PeerEndpoints.withTcpPort(BlockManagerId.apply("exec-" + index, "host-" + index, 7000 + index, Option.empty()), 9000 + index);
    }

    /** One request per peer of {@code blocks} blocks of BLOCK bytes, in the order the reader would send them. */
    private static List<List<PendingBlock>> requests(int peers, int blocks)
    {
        List<List<PendingBlock>> requests = new ArrayList<>();
        for (int p = 0; p < peers; p++) {
            List<PendingBlock> request = new ArrayList<>();
            for (int b = 0; b < blocks; b++) {
                request.add(new PendingBlock(peer(p), new ShuffleBlockRef(SHUFFLE, 100L * p + b, 0), BLOCK, p * 10 + b));
            }
            requests.add(request);
        }
        return requests;
    }

    /** A transport that runs {@code before} at the start of every fetch, then answers each block with BLOCK bytes that start with its map id. */
    private static ShuffleTransport transport(Hold before)
    {
        return new AnsweringTransport()
        {
            @Override
            byte[] bytesOf(ShuffleBlockRef ref)
            {
                return ByteBuffer.allocate(BLOCK).order(ByteOrder.nativeOrder()).putLong(0, ref.mapId()).array();
            }

            @Override
            void beforeAnswer(PeerAddress peer, List<ShuffleBlockRef> blocks)
                    throws IOException
            {
                before.run(peer, blocks.size() * (long) BLOCK);
            }

            @Override
            FetchedBlocks answer(FetchedBlocks fetched)
            {
                before.after(fetched.blocks().size() * (long) BLOCK);
                return fetched;
            }
        };
    }

    private interface Hold
    {
        void run(PeerAddress peer, long bytes)
                throws IOException;

        default void after(long bytes) {}
    }

    private static List<Long> mapIds(FetchedBlocks fetched)
    {
        List<Long> ids = new ArrayList<>();
        for (BlockBytes block : fetched.blocks()) {
            ids.add(block.buffer().getLong(0));
        }
        return ids;
    }

    /**
     * Three peers, one request each, a bound that fits all three: each fetch waits until all three
     * are in progress at once, which only happens if they are. Sent one after another, the first
     * fetch would wait alone and fail after 10 s.
     */
    @Test
    void requestsToSeveralPeersAreOutAtOnce()
    {
        CyclicBarrier allThree = new CyclicBarrier(3);
        ShuffleTransport transport = transport((peer, bytes) -> {
            try {
                allThree.await(10, TimeUnit.SECONDS);
            }
            catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
                throw new IOException("the three fetches were not out at once: " + e, e);
            }
        });
        try (RemoteFetches fetches = new RemoteFetches(transport, allocator, threads, requests(3, 2), 6L * BLOCK)) {
            fetches.issue();
            for (int p = 0; p < 3; p++) {
                RemoteFetches.Arrival arrival = fetches.take(null);
                assertNull(arrival.failure(), () -> String.valueOf(arrival.failure()));
                try (FetchedBlocks fetched = arrival.fetched()) {
                    assertEquals(List.of(100L * p, 100L * p + 1), mapIds(fetched), "answers in the order the requests went out");
                }
            }
            assertTrue(fetches.isEmpty());
            assertEquals(3, fetches.mostInFlight());
        }
    }

    /** Eight requests of two blocks under a bound of five blocks' bytes: never more than two requests (four blocks) out at once, and more than one. */
    @Test
    void theBytesOutAtOnceStayWithinTheBound()
    {
        AtomicLong out = new AtomicLong();
        AtomicLong most = new AtomicLong();
        ShuffleTransport transport = transport(new Hold()
        {
            @Override
            public void run(PeerAddress peer, long bytes)
            {
                most.accumulateAndGet(out.addAndGet(bytes), Math::max);
                try {
                    Thread.sleep(20);
                }
                catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }

            @Override
            public void after(long bytes)
            {
                out.addAndGet(-bytes);
            }
        });
        try (RemoteFetches fetches = new RemoteFetches(transport, allocator, threads, requests(8, 2), 5L * BLOCK)) {
            int taken = 0;
            while (!fetches.isEmpty()) {
                try (FetchedBlocks fetched = fetches.take(null).fetched()) {
                    assertEquals(List.of(100L * taken, 100L * taken + 1), mapIds(fetched));
                }
                taken++;
            }
            assertEquals(8, taken);
            assertEquals(2, fetches.mostInFlight(), "two 2-block requests fit in five blocks' bytes, a third does not");
            assertTrue(most.get() <= 5L * BLOCK, "at most the bound out at once: " + most.get());
        }
    }

    /** A request larger than the bound still goes, alone: the bound never stalls a reader. */
    @Test
    void aRequestLargerThanTheBoundGoesAlone()
    {
        try (RemoteFetches fetches = new RemoteFetches(transport((peer, bytes) -> {}), allocator, threads, requests(2, 4), BLOCK)) {
            for (int p = 0; p < 2; p++) {
                try (FetchedBlocks fetched = fetches.take(null).fetched()) {
                    assertEquals(4, fetched.blocks().size());
                }
            }
            assertEquals(1, fetches.mostInFlight());
        }
    }

    /** Closing with a fetch still out waits for it and frees what it brought: the allocator ends empty (checked after each test). */
    @Test
    void closingWaitsForAFetchStillOutAndFreesItsBlocks()
            throws InterruptedException
    {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch second = new CountDownLatch(1);
        ShuffleTransport transport = transport((peer, bytes) -> {
            if (peer.executorId().equals("exec-1")) {
                second.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                }
                catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        RemoteFetches fetches = new RemoteFetches(transport, allocator, threads, requests(2, 1), 2L * BLOCK);
        try (FetchedBlocks first = fetches.take(null).fetched()) {
            assertEquals(List.of(0L), mapIds(first));
        }
        assertTrue(second.await(10, TimeUnit.SECONDS), "the second request went out");
        Thread releaser = new Thread(() -> {
            try {
                Thread.sleep(200);
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            release.countDown();
        });
        releaser.start();
        fetches.close();
        releaser.join();
        assertEquals(0, allocator.getAllocatedMemory(), "the second request's block was freed by the time close returned");
    }

    /** A failed fetch arrives as a failure for its own request; the others still arrive. */
    @Test
    void aFailedFetchArrivesAsItsRequestsFailure()
    {
        ShuffleTransport transport = transport((peer, bytes) -> {
            if (peer.executorId().equals("exec-1")) {
                throw new IOException("Cannot connect to " + peer);
            }
        });
        try (RemoteFetches fetches = new RemoteFetches(transport, allocator, threads, requests(3, 1), 3L * BLOCK)) {
            fetches.take(null).fetched().close();
            RemoteFetches.Arrival failed = fetches.take(null);
            assertNull(failed.fetched());
            assertTrue(failed.failure() instanceof RemoteFetches.FetchIOException && failed.failure().getMessage().contains("exec-1"), String.valueOf(failed.failure()));
            assertEquals(peer(1), failed.request().get(0).location());
            fetches.take(null).fetched().close();
        }
    }
}
