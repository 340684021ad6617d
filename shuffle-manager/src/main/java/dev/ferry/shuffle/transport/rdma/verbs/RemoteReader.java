package dev.ferry.shuffle.transport.rdma.verbs;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

import dev.ferry.conf.ConfigSource;
import dev.ferry.shuffle.transport.TransportConfigKeys;
import dev.ferry.shuffle.transport.wire.RemoteSlice;

import static java.util.Objects.requireNonNull;

/**
 * Reads remote slices into a local registration with one-sided READs, SparkRDMA-style: each
 * READ at most {@code readChunkBytes} and never across a region boundary on either side; READs
 * go out in windows of at most {@code maxOutstandingReads} (and the queue depth), of which only
 * the last is signaled, so a window costs one completion. The first error completion fails the
 * whole read with the peer, work request and status named; the connection is then in the error
 * state and should be closed. Not thread-safe (one per connection user).
 */
public final class RemoteReader
{
    private final VerbsConnection connection;
    private final int window;
    private final int readChunkBytes;
    private long nextSequence;
    // Where in the sink each READ of the current read() lands, so a failure names the byte offset.
    private final Map<Long, Long> sinkOffsets = new HashMap<>();

    public RemoteReader(VerbsConnection connection, VerbsSettings settings, int readChunkBytes)
    {
        this.connection = requireNonNull(connection, "connection is null");
        requireNonNull(settings, "settings is null");
        if (readChunkBytes <= 0) {
            throw new IllegalArgumentException("read chunk must be positive: " + readChunkBytes);
        }
        this.window = Math.min(settings.maxOutstandingReads(), settings.queueDepth());
        this.readChunkBytes = readChunkBytes;
    }

    /** A reader with the device's settings and {@code spark.ferry.transport.rdma.readChunkBytes}. */
    public static RemoteReader fromConfig(VerbsConnection connection, ConfigSource config)
    {
        long chunk = TransportConfigKeys.RDMA_READ_CHUNK_BYTES.get(config);
        if (chunk <= 0 || chunk > RegistrationChunks.MAX_REGION_BYTES) {
            throw new IllegalArgumentException(TransportConfigKeys.RDMA_READ_CHUNK_BYTES.name() + " must be between 1 and " + RegistrationChunks.MAX_REGION_BYTES + ", got " + chunk);
        }
        return new RemoteReader(connection, VerbsSettings.from(config), (int) chunk);
    }

    /** Issues the READs for {@code targets} into {@code sink} and waits until all have landed, or fails. */
    public void read(List<ReadTarget> targets, Registration sink, Duration timeout)
            throws VerbsException
    {
        requireNonNull(targets, "targets is null");
        requireNonNull(sink, "sink is null");
        long deadline = System.nanoTime() + requireNonNull(timeout, "timeout is null").toNanos();
        sinkOffsets.clear();
        List<ReadRequest> requests = plan(targets, sink);
        for (int start = 0; start < requests.size(); start += window) {
            List<ReadRequest> batch = new ArrayList<>(requests.subList(start, Math.min(requests.size(), start + window)));
            ReadRequest last = batch.get(batch.size() - 1);
            batch.set(batch.size() - 1, new ReadRequest(last.wrId(), last.localAddress(), last.lkey(), last.remoteAddress(), last.rkey(), last.length(), true));
            connection.postReads(batch);
            awaitWindow(batch, deadline, timeout);
        }
    }

    /** The READs for {@code targets}, split at chunk size and at region boundaries of both sides. */
    List<ReadRequest> plan(List<ReadTarget> targets, Registration sink)
    {
        List<ReadRequest> requests = new ArrayList<>();
        for (ReadTarget target : targets) {
            RemoteSlice remote = target.remote();
            if (target.sinkOffset() > sink.length() - remote.length()) {
                throw new IllegalArgumentException("Slice of " + remote.length() + " bytes does not fit " + sink + " at offset " + target.sinkOffset());
            }
            long done = 0;
            while (done < remote.length()) {
                long sinkOffset = target.sinkOffset() + done;
                MemoryRegion local = sink.regionAt(sinkOffset);
                long localRoom = local.memoryOffset() + local.length() - sinkOffset;
                int length = (int) Math.min(Math.min(readChunkBytes, remote.length() - done), localRoom);
                long wrId = WorkRequestIds.of(connection.id(), nextSequence++ & WorkRequestIds.MAX_SEQUENCE);
                requests.add(ReadRequest.into(wrId, local, sinkOffset - local.memoryOffset(), remote.address() + done, remote.rkey(), length, false));
                sinkOffsets.put(wrId, sinkOffset);
                done += length;
            }
        }
        return requests;
    }

    private void awaitWindow(List<ReadRequest> batch, long deadline, Duration timeout)
            throws VerbsException
    {
        long lastWrId = batch.get(batch.size() - 1).wrId();
        Completion failure = null;
        long backoffNanos = 1_000;
        while (true) {
            for (Completion completion : connection.poll(batch.size())) {
                if (!completion.isSuccess() && failure == null) {
                    failure = completion;
                }
                if (completion.wrId() == lastWrId) {
                    if (failure != null) {
                        throw failed(failure);
                    }
                    return;
                }
                backoffNanos = 1_000;
            }
            if (System.nanoTime() - deadline > 0) {
                if (failure != null) {
                    throw failed(failure);
                }
                throw new VerbsException("RDMA READs from " + connection.peer() + " did not complete within " + timeout.toMillis() + " ms (waiting for wr "
                        + WorkRequestIds.describe(lastWrId) + ")");
            }
            LockSupport.parkNanos(backoffNanos);
            backoffNanos = Math.min(backoffNanos * 2, 1_000_000);
        }
    }

    private VerbsException failed(Completion completion)
    {
        String hint = switch (completion.status()) {
            case REM_ACCESS_ERR -> " (the peer's NIC refused: unknown or deregistered rkey, range outside the region, or no REMOTE_READ access)";
            case LOC_PROT_ERR -> " (the local sink is not registered, too small, or not writable)";
            case RETRY_EXC_ERR -> " (the peer did not answer: dead, unreachable, or a lossy fabric)";
            case WR_FLUSH_ERR -> " (the connection was closed or already in the error state)";
            default -> "";
        };
        Long offset = sinkOffsets.get(completion.wrId());
        String where = offset == null ? "" : " (READ landing at byte offset " + offset + ")";
        return new VerbsException("RDMA READ from " + connection.peer() + " failed: wr " + WorkRequestIds.describe(completion.wrId()) + where + " completed with "
                + completion.status() + hint);
    }
}
