package dev.ferry.shuffle.transport.rdma;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.ferry.shuffle.transport.IdleLandingBuffers;
import dev.ferry.shuffle.transport.rdma.verbs.Access;
import dev.ferry.shuffle.transport.rdma.verbs.ProtectionDomain;
import dev.ferry.shuffle.transport.rdma.verbs.RegistrableMemory;
import dev.ferry.shuffle.transport.rdma.verbs.Registration;
import dev.ferry.shuffle.transport.rdma.verbs.RegistrationCache;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsException;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.ForeignAllocation;
import org.apache.arrow.memory.RootAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.util.Objects.requireNonNull;

/**
 * The reader's landing buffers for one-sided READs: host buffers registered with this NIC as READ
 * sinks once, when first made, and reused for later blocks while they stay registered, so a fetched
 * block costs no {@code ibv_reg_mr}/{@code ibv_dereg_mr} pair. A buffer is deregistered when the pool
 * frees it (more than {@code retainBytes} idle, or the pool closes; {@link RegistrationCache} keeps it
 * registered while a READ into it is in flight).
 *
 * <p>A landing is handed out as an Arrow buffer of exactly the block's length accounted in the
 * reader's allocator (so the bounds on bytes in flight see it); releasing it returns the buffer here.
 * Sizes are rounded up to a power of two (at least 64 KiB) so a returned buffer fits later blocks of
 * similar size; a block larger than {@code retainBytes} gets a buffer of its own, registered and
 * deregistered around its one use. The memory is this pool's own (not Spark's), at most
 * {@code retainBytes} of it idle. Thread-safe.
 */
final class RdmaLandingPool
        implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(RdmaLandingPool.class);

    /** One landing buffer: its memory (the registered region's identity) and size class. */
    private record Landing(ArrowBuf memory, long size) {}

    /** A block's landing: the caller's Arrow buffer and the sink registration (a slice of the landing's region) to READ into. */
    record Sink(ArrowBuf body, Registration registration) {}

    private final RegistrationCache sinks;
    private final RootAllocator memory = new RootAllocator(Long.MAX_VALUE);
    // Guarded by this.
    private final IdleLandingBuffers<Landing> idle;
    private long lent;
    private long allocated;
    private long reused;
    private boolean closed;

    RdmaLandingPool(ProtectionDomain domain, long retainBytes)
    {
        this.sinks = new RegistrationCache(requireNonNull(domain, "domain is null"), Access.readSink());
        this.idle = new IdleLandingBuffers<>(retainBytes);
    }

    /**
     * A landing of {@code length} bytes in {@code allocator}, and its sink registration. Deregister
     * the sink after the READs (it costs the NIC nothing), and close the body like any Arrow buffer.
     */
    Sink take(BufferAllocator allocator, int length)
            throws VerbsException
    {
        requireNonNull(allocator, "allocator is null");
        if (length <= 0) {
            throw new IllegalArgumentException("landing length must be positive: " + length);
        }
        Landing landing = idleLanding(IdleLandingBuffers.sizeClass(length));
        boolean handedOut = false;
        try {
            Registration sink = sinks.block(landing.memory(), (domain, access) -> domain.register(
                    RegistrableMemory.host(landing.memory().nioBuffer(0, Math.toIntExact(landing.size()))), access), 0, length);
            try {
                AtomicBoolean returned = new AtomicBoolean();
                ArrowBuf body = allocator.wrapForeignAllocation(new ForeignAllocation(length, landing.memory().memoryAddress())
                {
                    @Override
                    protected void release0()
                    {
                        if (returned.compareAndSet(false, true)) {
                            giveBack(landing);
                        }
                    }
                });
                handedOut = true;
                return new Sink(body, sink);
            }
            finally {
                if (!handedOut) {
                    sink.deregister();
                }
            }
        }
        finally {
            if (!handedOut) {
                giveBack(landing);
            }
        }
    }

    private Landing idleLanding(long sizeClass)
    {
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("The RDMA landing pool is closed");
            }
            lent++;
            Landing landing = idle.take(sizeClass);
            if (landing != null) {
                reused++;
                return landing;
            }
            allocated++;
        }
        try {
            return new Landing(memory.buffer(sizeClass), sizeClass);
        }
        catch (RuntimeException e) {
            synchronized (this) {
                lent--;
            }
            throw e;
        }
    }

    private void giveBack(Landing landing)
    {
        synchronized (this) {
            lent--;
            if (!closed && idle.keep(landing, landing.size())) {
                return;
            }
        }
        free(landing);
        closeMemoryIfDone();
    }

    /** Deregisters the landing's region, then gives its memory back. */
    private void free(Landing landing)
    {
        try {
            sinks.released(landing.memory());
        }
        catch (VerbsException e) {
            LOG.warn("Deregistering an RDMA landing buffer of {} bytes failed: {}", landing.size(), e.getMessage());
        }
        finally {
            landing.memory().close();
        }
    }

    /** Landing buffers made (each registered once). */
    synchronized long allocated()
    {
        return allocated;
    }

    /** Landings served by an idle, still registered buffer. */
    synchronized long reused()
    {
        return reused;
    }

    synchronized long idleBytes()
    {
        return idle.idleBytes();
    }

    /** Sink regions registered with the NIC now. */
    int registeredRegions()
    {
        return sinks.registeredRegions();
    }

    /** Sink region registrations made since the pool opened. */
    long registrations()
    {
        return sinks.registrations();
    }

    /** Frees (and deregisters) the idle buffers and deregisters the rest; a buffer still lent out is freed when its Arrow buffer is released. */
    @Override
    public void close()
    {
        List<Landing> freed;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            freed = idle.drain();
        }
        freed.forEach(this::free);
        try {
            // Buffers still lent out hold no READ (their sinks were deregistered after it): their regions go now, before the NIC closes.
            sinks.close();
        }
        catch (VerbsException e) {
            LOG.warn("Deregistering RDMA landing buffers failed: {}", e.getMessage());
        }
        closeMemoryIfDone();
    }

    private void closeMemoryIfDone()
    {
        synchronized (this) {
            if (!closed || lent > 0) {
                return;
            }
        }
        // Idempotent in Arrow; every landing is freed by now.
        memory.close();
    }
}
