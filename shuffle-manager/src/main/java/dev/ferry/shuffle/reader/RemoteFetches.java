package dev.ferry.shuffle.reader;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.ferry.shuffle.PeerEndpoints;
import dev.ferry.shuffle.transport.FetchedBlocks;
import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.ShuffleTransport;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.spark.TaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.util.Objects.requireNonNull;

/**
 * One reduce task's remote fetches, overlapped: requests go out on the executor's fetch threads while
 * the task decodes what already arrived (and reads its local blocks), up to {@code maxBytesInFlight}
 * bytes at a time (one larger request alone), so several peers send at once and a link is kept busy
 * instead of idling while the task computes. Results are taken in the order the requests were issued,
 * which keeps a task's row order the same from run to run; the requests after a slow one keep arriving
 * meanwhile, within the bound.
 *
 * <p>Everything but the fetches themselves runs on the task's thread: Spark's read metrics and memory
 * accounting are not thread-safe, so a fetch thread only fills its future. Closing waits for the
 * fetches still out (each bounded by the transport's timeouts) and frees what they bring, so the task's
 * allocator closes with nothing outstanding.
 */
final class RemoteFetches
        implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(RemoteFetches.class);
    // How often a task waiting for a fetch checks whether it was killed.
    private static final long POLL_MILLIS = 100;
    // The most a closing task waits for its fetches still out: past the transport's own timeouts.
    private static final long CLOSE_WAIT_SECONDS = 300;

    private final ShuffleTransport transport;
    private final BufferAllocator allocator;
    private final Executor threads;
    private final long maxBytesInFlight;
    private final Deque<List<PendingBlock>> waiting;
    private final Deque<InFlight> inFlight = new ArrayDeque<>();
    private long bytesInFlight;
    private int mostInFlight;
    private boolean closed;

    RemoteFetches(ShuffleTransport transport, BufferAllocator allocator, Executor threads, List<List<PendingBlock>> requests, long maxBytesInFlight)
    {
        this.transport = requireNonNull(transport, "transport is null");
        this.allocator = requireNonNull(allocator, "allocator is null");
        this.threads = requireNonNull(threads, "threads is null");
        this.waiting = new ArrayDeque<>(requests);
        if (maxBytesInFlight <= 0) {
            throw new IllegalArgumentException("maxBytesInFlight must be positive: " + maxBytesInFlight);
        }
        this.maxBytesInFlight = maxBytesInFlight;
    }

    /**
     * A request's answer, or why it has none; {@code waitMillis} is how long the task waited for it,
     * {@code requestMillis} how long the fetch itself took (0 for a failed one).
     */
    record Arrival(List<PendingBlock> request, FetchedBlocks fetched, Throwable failure, long waitMillis, long requestMillis) {}

    private record Answer(FetchedBlocks blocks, long nanos) {}

    private record InFlight(List<PendingBlock> request, long bytes, CompletableFuture<Answer> answer) {}

    /** Sends requests until the bytes in flight reach the bound (always at least one out while any waits). */
    void issue()
    {
        while (!closed && !waiting.isEmpty()) {
            long bytes = bytes(waiting.peek());
            if (!inFlight.isEmpty() && bytesInFlight + bytes > maxBytesInFlight) {
                return;
            }
            List<PendingBlock> request = waiting.poll();
            bytesInFlight += bytes;
            inFlight.add(new InFlight(request, bytes, CompletableFuture.supplyAsync(() -> fetch(request), threads)));
            mostInFlight = Math.max(mostInFlight, inFlight.size());
        }
    }

    boolean isEmpty()
    {
        return waiting.isEmpty() && inFlight.isEmpty();
    }

    /** The oldest request's answer, waiting for it (the task can be killed meanwhile); more requests go out as it is taken. */
    Arrival take(TaskContext context)
    {
        issue();
        InFlight oldest = inFlight.poll();
        if (oldest == null) {
            throw new IllegalStateException("No remote fetch left to take");
        }
        long started = System.nanoTime();
        Answer fetched = null;
        Throwable failure = null;
        try {
            while (true) {
                if (context != null) {
                    context.killTaskIfInterrupted();
                }
                try {
                    fetched = oldest.answer().get(POLL_MILLIS, TimeUnit.MILLISECONDS);
                    break;
                }
                catch (TimeoutException e) {
                    // Not there yet: look at the task again.
                }
                catch (ExecutionException e) {
                    failure = e.getCause();
                    break;
                }
                catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    failure = e;
                    break;
                }
            }
        }
        catch (RuntimeException killed) {
            // The task was killed while waiting: back in line, so closing waits for it and frees what it brings.
            inFlight.addFirst(oldest);
            throw killed;
        }
        bytesInFlight -= oldest.bytes();
        issue();
        return new Arrival(oldest.request(), fetched == null ? null : fetched.blocks(), failure, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
                fetched == null ? 0 : TimeUnit.NANOSECONDS.toMillis(fetched.nanos()));
    }

    /** Puts blocks given back (memory pressure) first in line, to be fetched again in their turn. */
    void giveBack(List<PendingBlock> request)
    {
        if (!request.isEmpty()) {
            waiting.addFirst(request);
        }
    }

    /** The most requests this task had out at once (for tests and logs). */
    int mostInFlight()
    {
        return mostInFlight;
    }

    private Answer fetch(List<PendingBlock> request)
    {
        PendingBlock first = request.get(0);
        PeerAddress peer = PeerEndpoints.tcpPeer(first.location())
                .orElseThrow(() -> new NoEndpointException("Map output location " + first.location() + " carries no Ferry endpoint"));
        List<ShuffleBlockRef> refs = new ArrayList<>(request.size());
        request.forEach(block -> refs.add(block.ref()));
        long started = System.nanoTime();
        try {
            FetchedBlocks fetched = transport.fetch(peer, refs, allocator);
            return new Answer(fetched, System.nanoTime() - started);
        }
        catch (IOException e) {
            throw new FetchIOException(e);
        }
    }

    /** Frees a request's blocks once it arrives (now, if it has); the stage returned completes once they are freed. */
    private static CompletableFuture<Answer> freeWhenDone(InFlight request)
    {
        return request.answer().whenComplete((fetched, failure) -> {
            if (fetched != null) {
                fetched.blocks().close();
            }
        });
    }

    /** Stops sending; frees every answer, waiting (bounded) for those still out so nothing is left in the allocator. */
    @Override
    public void close()
    {
        if (closed) {
            return;
        }
        closed = true;
        waiting.clear();
        List<CompletableFuture<Answer>> out = new ArrayList<>();
        while (!inFlight.isEmpty()) {
            InFlight request = inFlight.poll();
            // Wait for the freeing, not only the arrival: the answer completes before its dependents run.
            out.add(freeWhenDone(request));
        }
        bytesInFlight = 0;
        if (out.isEmpty()) {
            return;
        }
        try {
            CompletableFuture.allOf(out.toArray(CompletableFuture[]::new)).get(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
        }
        catch (ExecutionException e) {
            // A failed fetch brought nothing to free; the task already has its own failure (or none to report).
        }
        catch (TimeoutException e) {
            LOG.error("{} remote fetches of a closing reduce task still out after {} s; their blocks will be freed when they arrive", out.size(), CLOSE_WAIT_SECONDS);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static long bytes(List<PendingBlock> request)
    {
        long bytes = 0;
        for (PendingBlock block : request) {
            bytes += block.size();
        }
        return bytes;
    }

    /** The transport's IOException carried out of a fetch thread; unwrapped by the iterator. */
    static final class FetchIOException
            extends RuntimeException
    {
        FetchIOException(IOException cause)
        {
            super(cause.getMessage(), cause);
        }
    }

    /** A map output location without Ferry's endpoint (not written by an executor running Ferry's server). */
    static final class NoEndpointException
            extends RuntimeException
    {
        NoEndpointException(String message)
        {
            super(message);
        }
    }
}
