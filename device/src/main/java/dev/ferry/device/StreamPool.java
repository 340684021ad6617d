package dev.ferry.device;

import dev.ferry.device.memory.DeviceOutOfMemoryException;
import dev.ferry.device.spi.BackendStream;
import dev.ferry.device.spi.DeviceBackend;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;

import static java.util.Objects.requireNonNull;

/**
 * The runtime's idle streams per device, with their pinned staging chunks: a closed
 * {@link DeviceStream} gives its stream back here instead of destroying it, so a copy costs no
 * {@code cudaStreamCreate}/{@code cudaStreamDestroy} (a new stream per block put, read and copy
 * was a driver round trip each). At most {@code idlePerDevice} stay idle per device; the rest are
 * destroyed. Thread-safe.
 */
final class StreamPool
        implements AutoCloseable
{
    private static final Logger log = LoggerFactory.getLogger(StreamPool.class);

    /** One backend stream and, once a pageable copy needed them, its staging chunks. */
    static final class Pooled
    {
        final int device;
        final BackendStream stream;
        private Optional<PinnedStaging> staging = Optional.empty();
        private boolean stagingTried;

        Pooled(int device, BackendStream stream)
        {
            this.device = device;
            this.stream = requireNonNull(stream, "stream is null");
        }
    }

    private final DeviceBackend backend;
    private final int idlePerDevice;
    private final long stagingChunk;
    private final LongFunction<PinnedHostBuffer> pinned;
    private final List<ArrayDeque<Pooled>> idle = new ArrayList<>();
    private final AtomicLong created = new AtomicLong();
    private final AtomicLong reused = new AtomicLong();
    private final AtomicLong stagingRefused = new AtomicLong();
    private final AtomicBoolean refusalLogged = new AtomicBoolean();
    private boolean closed;

    StreamPool(DeviceBackend backend, int devices, int idlePerDevice, long stagingChunk, LongFunction<PinnedHostBuffer> pinned)
    {
        this.backend = requireNonNull(backend, "backend is null");
        this.idlePerDevice = idlePerDevice;
        this.stagingChunk = stagingChunk;
        this.pinned = requireNonNull(pinned, "pinned is null");
        for (int device = 0; device < devices; device++) {
            idle.add(new ArrayDeque<>());
        }
    }

    Pooled take(int device)
    {
        synchronized (this) {
            Pooled pooled = idle.get(device).pollFirst();
            if (pooled != null) {
                reused.incrementAndGet();
                return pooled;
            }
        }
        created.incrementAndGet();
        return new Pooled(device, backend.createStream(device));
    }

    /** Takes back a stream whose work has completed (the caller synchronized it). */
    void give(Pooled pooled)
    {
        synchronized (this) {
            ArrayDeque<Pooled> deque = idle.get(pooled.device);
            if (!closed && deque.size() < idlePerDevice) {
                deque.addFirst(pooled);
                return;
            }
        }
        destroy(pooled);
    }

    /**
     * The stream's staging chunks, allocated the first time it needs them, or empty when pinned
     * memory is refused (its limit): the copy then goes straight from the pageable buffer, which
     * is counted ({@link #stagingRefusals()}) and logged once.
     */
    Optional<PinnedStaging> staging(Pooled pooled)
    {
        if (!pooled.stagingTried) {
            pooled.stagingTried = true;
            PinnedHostBuffer first = null;
            try {
                first = pinned.apply(stagingChunk);
                pooled.staging = Optional.of(new PinnedStaging(first, pinned.apply(stagingChunk)));
            }
            catch (DeviceOutOfMemoryException e) {
                if (first != null) {
                    first.close();
                }
                stagingRefused.incrementAndGet();
                if (refusalLogged.compareAndSet(false, true)) {
                    log.warn("No pinned staging for a stream on device {} (pageable copies go through the driver's own staging): {}", pooled.device, e.getMessage());
                }
            }
        }
        return pooled.staging;
    }

    long streamsCreated()
    {
        return created.get();
    }

    long streamsReused()
    {
        return reused.get();
    }

    long stagingRefusals()
    {
        return stagingRefused.get();
    }

    static void destroy(Pooled pooled)
    {
        try {
            pooled.stream.close();
        }
        finally {
            pooled.staging.ifPresent(PinnedStaging::close);
        }
    }

    /** Destroys every idle stream and its staging; streams still out are destroyed when given back. */
    @Override
    public void close()
    {
        List<Pooled> all = new ArrayList<>();
        synchronized (this) {
            closed = true;
            for (ArrayDeque<Pooled> deque : idle) {
                all.addAll(deque);
                deque.clear();
            }
        }
        RuntimeException failure = null;
        for (Pooled pooled : all) {
            try {
                destroy(pooled);
            }
            catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
