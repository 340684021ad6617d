package dev.ferry.shuffle.transport.rdma.verbs;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.util.Objects.requireNonNull;

/**
 * Registrations of whole regions (a host arena, a device slab) with one protection domain, each
 * made once ({@code ibv_reg_mr}) and shared by every block that lies inside it: a block is
 * {@link Registration#slice a slice} of its region's registration, with the region's keys. A
 * region is deregistered when its owner has {@link #released released} it and none of its blocks is
 * registered any more (a block a peer may still be READing keeps its region registered), or at
 * {@link #close}.
 * <p>Exposure: a peer holding a block's rkey can READ the whole region with it, not only the block,
 * and for as long as the region is registered, not only until the block is released. Per-block
 * registrations bounded both to the block; this cache trades that for one registration per region.
 * Who holds an rkey is still gated: slices travel only on the authenticated stream, and READs reach
 * the region only over a queue pair the peer's {@link ConnectionAdmissions} admitted. Thread-safe.
 */
public final class RegistrationCache
        implements AutoCloseable
{
    /** How the cache makes a region's registration, when a block of it is first asked for. */
    @FunctionalInterface
    public interface RegionRegistrar
    {
        Registration register(ProtectionDomain domain, Set<Access> access)
                throws VerbsException;
    }

    private static final Logger LOG = LoggerFactory.getLogger(RegistrationCache.class);

    /** One region's registration and the blocks of it registered now. Guarded by the cache. */
    private static final class Entry
    {
        private final Registration whole;
        private int blocks;
        private boolean released;

        Entry(Registration whole)
        {
            this.whole = whole;
        }
    }

    private final ProtectionDomain domain;
    private final Set<Access> access;
    private final Map<Object, Entry> byRegion = new IdentityHashMap<>();
    private long registrations;
    private boolean closed;

    public RegistrationCache(ProtectionDomain domain, Set<Access> access)
    {
        this.domain = requireNonNull(domain, "domain is null");
        // The domain checks the combination at the first registration, as ibv_reg_mr would.
        this.access = Set.copyOf(requireNonNull(access, "access is null"));
    }

    /**
     * Block {@code [offset, +length)} of {@code region} (compared by identity), registering the
     * region through {@code registrar} only the first time. Deregistering the block costs the NIC
     * nothing: the region stays registered (until its owner released it, see {@link #released}).
     */
    public Registration block(Object region, RegionRegistrar registrar, long offset, long length)
            throws VerbsException
    {
        return block(region, registrar, offset, length, null);
    }

    /**
     * As above; {@code ownerRelease} (nullable), when the region is registered here for the first
     * time, is given the hook its owner runs when it releases the region ({@link #released}). The
     * hook may run at once (an owner that already released the region): the block is counted first,
     * so the region stays registered until the block is deregistered.
     */
    public synchronized Registration block(Object region, RegionRegistrar registrar, long offset, long length, Consumer<Runnable> ownerRelease)
            throws VerbsException
    {
        requireNonNull(region, "region is null");
        requireNonNull(registrar, "registrar is null");
        if (closed) {
            throw new VerbsException("The registration cache is closed; cannot register a block of " + region);
        }
        Entry entry = byRegion.get(region);
        boolean fresh = entry == null;
        if (fresh) {
            entry = new Entry(requireNonNull(registrar.register(domain, access), "registrar returned null"));
            byRegion.put(region, entry);
            registrations++;
        }
        Entry owner = entry;
        // Counted before the owner's hook is set, which may run at once, and before slicing, which may refuse the range.
        entry.blocks++;
        boolean sliced = false;
        try {
            if (fresh && ownerRelease != null) {
                ownerRelease.accept(() -> {
                    try {
                        released(region);
                    }
                    catch (VerbsException e) {
                        LOG.warn("Deregistering a released region from the NIC failed: {}", e.getMessage());
                    }
                });
            }
            Registration block = entry.whole.slice(offset, length, regions -> blockDeregistered(region, owner));
            sliced = true;
            return block;
        }
        finally {
            if (!sliced) {
                blockDeregistered(region, owner);
            }
        }
    }

    /** A block of {@code region} was deregistered: the region goes too if its owner released it and this was its last block. */
    private void blockDeregistered(Object region, Entry entry)
            throws VerbsException
    {
        synchronized (this) {
            entry.blocks--;
            if (!entry.released || entry.blocks > 0 || byRegion.get(region) != entry) {
                return;
            }
            byRegion.remove(region);
        }
        entry.whole.deregister();
    }

    /**
     * The owner of {@code region} released it: deregisters it now, or when its last registered block
     * is deregistered (no-op when none of its blocks was registered here).
     */
    public void released(Object region)
            throws VerbsException
    {
        Entry entry;
        synchronized (this) {
            entry = byRegion.get(requireNonNull(region, "region is null"));
            if (entry == null) {
                return;
            }
            if (entry.blocks > 0) {
                entry.released = true;
                return;
            }
            byRegion.remove(region);
        }
        entry.whole.deregister();
    }

    /** Regions registered now. */
    public synchronized int registeredRegions()
    {
        return byRegion.size();
    }

    /** Region registrations made since this cache opened (each once, however many blocks it served). */
    public synchronized long registrations()
    {
        return registrations;
    }

    /** Deregisters every region (blocks still registered lose their keys with it); the first failure is thrown after the rest are tried. */
    @Override
    public void close()
            throws VerbsException
    {
        Map<Object, Entry> left;
        synchronized (this) {
            closed = true;
            left = new IdentityHashMap<>(byRegion);
            byRegion.clear();
        }
        VerbsException failure = null;
        for (Entry entry : left.values()) {
            try {
                entry.whole.deregister();
            }
            catch (VerbsException e) {
                if (failure == null) {
                    failure = e;
                }
                else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
