package dev.ferry.shuffle.transport.rdma.verbs;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * Registrations of whole regions (a host arena, a device slab) with one protection domain, each
 * made once ({@code ibv_reg_mr}) and shared by every block that lies inside it: a block is
 * {@link Registration#slice a slice} of its region's registration, with the region's keys. A
 * region is deregistered when its owner {@link #released releases} it, or at {@link #close}.
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

    private final ProtectionDomain domain;
    private final Set<Access> access;
    private final Map<Object, Registration> byRegion = new IdentityHashMap<>();
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
     * region through {@code registrar} only the first time. Deregistering the block is a no-op for
     * the NIC: the region stays registered.
     */
    public synchronized Registration block(Object region, RegionRegistrar registrar, long offset, long length)
            throws VerbsException
    {
        requireNonNull(region, "region is null");
        requireNonNull(registrar, "registrar is null");
        if (closed) {
            throw new VerbsException("The registration cache is closed; cannot register a block of " + region);
        }
        Registration whole = byRegion.get(region);
        if (whole == null) {
            whole = requireNonNull(registrar.register(domain, access), "registrar returned null");
            byRegion.put(region, whole);
            registrations++;
        }
        return whole.slice(offset, length, regions -> {});
    }

    /** The owner of {@code region} released it: deregisters it (no-op when none of its blocks was registered). */
    public void released(Object region)
            throws VerbsException
    {
        Registration whole;
        synchronized (this) {
            whole = byRegion.remove(requireNonNull(region, "region is null"));
        }
        if (whole != null) {
            whole.deregister();
        }
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

    /** Deregisters every region; the first failure is thrown after the rest are tried. */
    @Override
    public void close()
            throws VerbsException
    {
        Map<Object, Registration> left;
        synchronized (this) {
            closed = true;
            left = new IdentityHashMap<>(byRegion);
            byRegion.clear();
        }
        VerbsException failure = null;
        for (Registration registration : left.values()) {
            try {
                registration.deregister();
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
