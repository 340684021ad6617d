package dev.ferry.shuffle.reader;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;

import dev.ferry.arrow.DirectArrowColumnVector;
import dev.ferry.shuffle.ExchangeMetrics;
import dev.ferry.shuffle.ShuffleConfigKeys;
import dev.ferry.shuffle.format.ArrowSchemas;
import dev.ferry.shuffle.format.BlockDecoder;
import dev.ferry.shuffle.format.CorruptBlockException;
import dev.ferry.shuffle.format.MemoryGrants;
import dev.ferry.shuffle.store.BlockBytes;
import dev.ferry.shuffle.store.MapOutputStore;
import dev.ferry.shuffle.transport.BlockFetchException;
import dev.ferry.shuffle.transport.FetchedBlocks;
import dev.ferry.shuffle.transport.ShuffleTransport;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.TaskContext;
import org.apache.spark.shuffle.FetchFailedException;
import org.apache.spark.shuffle.ShuffleReadMetricsReporter;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.Product2;
import scala.Tuple2;
import scala.collection.AbstractIterator;

import static java.util.Objects.requireNonNull;

/**
 * The reduce side's stream of batches: remote blocks are requested first, several peers at once and
 * at most {@code maxBytesInFlight} bytes out at a time ({@link RemoteFetches}), so they arrive while
 * the local blocks are opened in this executor's store (a slice, no copy, for blocks in memory) and
 * while earlier blocks are decoded; each block is checked and decoded into Arrow vectors. Any block that cannot be had, or is corrupt, becomes a
 * {@link FetchFailedException} naming its map output, so Spark reruns that map task.
 *
 * <p>The batch returned by {@code next()} stays valid until the following {@code hasNext()}.
 */
final class ColumnarBlockIterator
        extends AbstractIterator<Product2<Object, Object>>
        implements AutoCloseable
{
    private final int shuffleId;
    private final String localExecutorId;
    private final MapOutputStore store;
    private final BufferAllocator allocator;
    private final ShuffleReadMetricsReporter readMetrics;
    private final ExchangeMetrics exchangeMetrics;
    private final TaskContext context;
    private final Deque<PendingBlock> localBlocks;
    private final RemoteFetches remote;
    private final Deque<Received> received = new ArrayDeque<>();
    private final Schema arrowSchema;
    // A fresh root per batch: Spark may close a batch it is done with (closing its vectors), so a
    // root is never reused; the previous one is closed here when the next batch is loaded.
    private VectorSchemaRoot root;
    private ColumnarBatch batch;
    private BlockDecoder decoder;
    private PendingBlock current;
    // Spark's accounting of the fetched blocks (after the transport fetched them: a smaller grant
    // only means Spark had less to give), and what the block being decoded was granted.
    private MemoryGrants account = MemoryGrants.UNLIMITED;
    private long currentAccounted;
    private long refetchedBlocks;
    private boolean batchReady;
    private boolean remoteStarted;
    private boolean closed;

    ColumnarBlockIterator(int shuffleId, String localExecutorId, MapOutputStore store, ShuffleTransport transport, BufferAllocator allocator, StructType schema,
            List<PendingBlock> localBlocks, List<List<PendingBlock>> remoteRequests, long maxBytesInFlight, Executor fetchThreads, ShuffleReadMetricsReporter readMetrics,
            ExchangeMetrics exchangeMetrics, TaskContext context)
    {
        this.shuffleId = shuffleId;
        this.localExecutorId = requireNonNull(localExecutorId, "localExecutorId is null");
        this.store = requireNonNull(store, "store is null");
        this.allocator = requireNonNull(allocator, "allocator is null");
        this.readMetrics = requireNonNull(readMetrics, "readMetrics is null");
        this.exchangeMetrics = requireNonNull(exchangeMetrics, "exchangeMetrics is null");
        this.context = context;
        this.localBlocks = new ArrayDeque<>(localBlocks);
        this.remote = new RemoteFetches(transport, allocator, fetchThreads, remoteRequests, maxBytesInFlight);
        this.arrowSchema = ArrowSchemas.toArrow(schema);
    }

    @Override
    public boolean hasNext()
    {
        if (batchReady) {
            return true;
        }
        if (closed) {
            return false;
        }
        try {
            while (true) {
                if (decoder != null) {
                    closeRoot();
                    VectorSchemaRoot next = VectorSchemaRoot.create(arrowSchema, allocator);
                    boolean loaded;
                    try {
                        loaded = decoder.loadNext(next);
                    }
                    catch (CorruptBlockException | RuntimeException e) {
                        next.close();
                        throw e;
                    }
                    if (loaded) {
                        root = next;
                        batch = newBatch(next);
                        readMetrics.incRecordsRead(next.getRowCount());
                        batchReady = true;
                        return true;
                    }
                    next.close();
                    decoder.close();
                    decoder = null;
                    current = null;
                    account.release(currentAccounted);
                    currentAccounted = 0;
                }
                if (!openNextBlock()) {
                    close();
                    return false;
                }
            }
        }
        catch (CorruptBlockException e) {
            exchangeMetrics.corruptBlocks().add(1);
            throw fetchFailed(current, "Corrupt block " + current.ref() + ": " + e.getMessage(), e);
        }
        catch (OutOfMemoryException e) {
            throw arrowLimitExceeded(e);
        }
    }

    private IllegalStateException arrowLimitExceeded(OutOfMemoryException e)
    {
        return new IllegalStateException("Ferry shuffle " + shuffleId + " reader of block " + (current == null ? "?" : current.ref()) + " needs more Arrow memory than "
                + ShuffleConfigKeys.TASK_ARROW_LIMIT_BYTES.name() + " (" + allocator.getLimit() + " bytes; " + allocator.getAllocatedMemory()
                + " held): raise it or lower " + ShuffleConfigKeys.MAX_BYTES_IN_FLIGHT.name() + ". " + e.getMessage(), e);
    }

    @Override
    public Product2<Object, Object> next()
    {
        if (!hasNext()) {
            throw new java.util.NoSuchElementException();
        }
        batchReady = false;
        return new Tuple2<>(current.ref().reduceId(), batch);
    }

    private static ColumnarBatch newBatch(VectorSchemaRoot root)
    {
        List<FieldVector> vectors = root.getFieldVectors();
        ColumnVector[] columns = new ColumnVector[vectors.size()];
        for (int i = 0; i < columns.length; i++) {
            columns[i] = DirectArrowColumnVector.of(vectors.get(i));
        }
        return new ColumnarBatch(columns, root.getRowCount());
    }

    private void closeRoot()
    {
        if (root != null) {
            root.close();
            root = null;
            batch = null;
        }
    }

    /** Sets up the decoder of the next block; false when all blocks are read. */
    private boolean openNextBlock()
            throws CorruptBlockException
    {
        if (context != null) {
            context.killTaskIfInterrupted();
        }
        if (!remoteStarted) {
            // Remote requests go out before the first local block is opened: they travel while local blocks are decoded.
            remote.issue();
            remoteStarted = true;
        }
        if (received.isEmpty() && localBlocks.isEmpty() && !remote.isEmpty()) {
            receive(remote.take(context));
        }
        if (!received.isEmpty()) {
            Received next = received.poll();
            current = next.block;
            currentAccounted = next.accounted;
            decoder = new BlockDecoder(next.bytes.takeBuffer(), next.bytes.length());
            return true;
        }
        if (!localBlocks.isEmpty()) {
            current = localBlocks.poll();
            Optional<BlockBytes> bytes;
            try {
                bytes = store.open(shuffleId, current.ref().mapId(), current.ref().reduceId());
            }
            catch (IOException | RuntimeException e) {
                throw fetchFailed(current, "Cannot read local block " + current.ref() + ": " + e.getMessage(), e);
            }
            if (bytes.isEmpty()) {
                throw fetchFailed(current, "Map output " + current.ref() + " is not in executor " + localExecutorId + "'s " + store.name() + " store", null);
            }
            readMetrics.incLocalBlocksFetched(1);
            readMetrics.incLocalBytesRead(bytes.get().length());
            exchangeMetrics.addRoute(ExchangeMetrics.ROUTE_LOCAL, bytes.get().length());
            decoder = new BlockDecoder(bytes.get().takeBuffer(), bytes.get().length());
            return true;
        }
        return false;
    }

    /** Takes one request's answer onto the task: accounted, counted, queued for decoding; a failure becomes the fetch failure of the block it is pinned on. */
    private void receive(RemoteFetches.Arrival arrival)
    {
        List<PendingBlock> request = arrival.request();
        PendingBlock first = request.get(0);
        Throwable failure = arrival.failure();
        if (failure instanceof RemoteFetches.NoEndpointException) {
            throw fetchFailed(first, failure.getMessage(), null);
        }
        if (failure instanceof RemoteFetches.FetchIOException wrapped) {
            failure = wrapped.getCause();
        }
        if (failure instanceof Error error) {
            throw error;
        }
        if (failure instanceof InterruptedException) {
            if (context != null) {
                context.killTaskIfInterrupted();
            }
            throw new IllegalStateException("Interrupted waiting for " + request.size() + " blocks from " + first.location(), failure);
        }
        if (failure != null) {
            OutOfMemoryException limit = arrowLimitCause(failure);
            if (limit != null) {
                throw arrowLimitExceeded(limit);
            }
            // Blame the block the transport says failed, so Spark reruns the right map task; a
            // failure not pinned on one block (connect, auth) is charged to the request's first.
            PendingBlock failed = BlockFetchException.blockOf(failure)
                    .flatMap(ref -> request.stream().filter(block -> block.ref().equals(ref)).findFirst())
                    .orElse(first);
            current = failed;
            throw fetchFailed(failed, failure.getMessage(), failure);
        }
        FetchedBlocks fetched = arrival.fetched();
        fetched.fallbacks().forEach(exchangeMetrics::addFallback);
        readMetrics.incFetchWaitTime(arrival.waitMillis());
        readMetrics.incRemoteReqsDuration(arrival.requestMillis());
        if (!fetched.blocks().isEmpty()) {
            // One request goes to one peer; its wait is charged to the route its first block took.
            exchangeMetrics.addFetchWait(fetched.routeOf(0), arrival.waitMillis());
        }
        for (int i = 0; i < request.size(); i++) {
            BlockBytes bytes = fetched.blocks().get(i);
            readMetrics.incRemoteBlocksFetched(1);
            readMetrics.incRemoteBytesRead(bytes.length());
            exchangeMetrics.addRoute(fetched.routeOf(i), bytes.length());
            received.add(new Received(request.get(i), bytes, account.acquire(bytes.length())));
        }
    }

    /** The task's Arrow limit somewhere in a transport failure's causes, or null. */
    private static OutOfMemoryException arrowLimitCause(Throwable failure)
    {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof OutOfMemoryException limit) {
                return limit;
            }
        }
        return null;
    }

    private RuntimeException fetchFailed(PendingBlock block, String message, Throwable cause)
    {
        return SneakyThrow.sneakyThrow(new FetchFailedException(block.location(), shuffleId, block.ref().mapId(), block.mapIndex(), block.ref().reduceId(), message, cause));
    }

    /** Releases every buffer; called when the stream ends and again at task completion. */
    @Override
    public void close()
    {
        if (closed) {
            return;
        }
        closed = true;
        batchReady = false;
        if (decoder != null) {
            decoder.close();
            decoder = null;
        }
        while (!received.isEmpty()) {
            Received dropped = received.poll();
            dropped.bytes.close();
            account.release(dropped.accounted);
        }
        account.release(currentAccounted);
        currentAccounted = 0;
        closeRoot();
        remote.close();
    }

    /** Where the fetched blocks are accounted; set before the first {@code hasNext}. */
    void account(MemoryGrants account)
    {
        this.account = requireNonNull(account, "account is null");
    }

    /**
     * Gives back the blocks fetched and not yet opened: released now and fetched again, in the
     * same order, when their turn comes (the peer still has them). Returns the accounted bytes
     * given back. The block being decoded and the batch handed out stay.
     */
    long releaseQueued()
    {
        if (closed || received.isEmpty()) {
            return 0;
        }
        List<PendingBlock> again = new ArrayList<>(received.size());
        long freed = 0;
        while (!received.isEmpty()) {
            Received dropped = received.poll();
            again.add(dropped.block);
            dropped.bytes.close();
            account.release(dropped.accounted);
            freed += dropped.accounted;
        }
        // The queue only ever holds one request's blocks, all from one peer.
        remote.giveBack(again);
        refetchedBlocks += again.size();
        return freed;
    }

    /** Blocks given back by {@link #releaseQueued} and fetched again. */
    long refetchedBlocks()
    {
        return refetchedBlocks;
    }

    private record Received(PendingBlock block, BlockBytes bytes, long accounted)
    {
    }
}
