package dev.ferry.device.ipc;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * The IPC mappings of other processes' arenas that a backend keeps open, one per (exporter
 * process, arena, importing device): opening an exporter's allocation ({@code cudaIpcOpenMemHandle})
 * costs a driver call and a peer mapping, so it is done once and every later block of the same
 * arena is an offset into the mapping, as UCX's and RAPIDS' IPC caches do. A block holds a
 * {@link Use} while it is imported; the mapping stays open when the last use closes, and is closed
 * when its exporter has exited (checked on {@link #sweep()}, run before every new open), when the
 * caller says the peer departed ({@link #closePeer}), or at {@link #close()}. A mapping in use when
 * one of those happens is closed with its last use. Thread-safe.
 *
 * @param <M> what the backend's open returns (a mapped pointer, a mapped slice)
 */
public final class PeerArenaImports<M>
        implements AutoCloseable
{
    private final Consumer<M> closer;
    private final Map<Key, Mapping> mappings = new HashMap<>();
    private long opened;
    private long reused;
    private long closedMappings;
    private boolean closed;

    /** {@code closer} closes one mapping (e.g. {@code cudaIpcCloseMemHandle} in the importing device's context). */
    public PeerArenaImports(Consumer<M> closer)
    {
        this.closer = requireNonNull(closer, "closer is null");
    }

    /**
     * A use of the mapping of {@code arena} (a name unique per exporter allocation: a file, a
     * handle's bytes) of process {@code exporterPid} imported on {@code importingDevice}; opened
     * with {@code opener} only when none is open yet.
     */
    public Use acquire(long exporterPid, String arena, int importingDevice, Supplier<M> opener)
    {
        requireNonNull(arena, "arena is null");
        requireNonNull(opener, "opener is null");
        Key key = new Key(exporterPid, arena, importingDevice);
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("Peer arena imports are closed");
            }
            Mapping mapping = mappings.get(key);
            if (mapping != null) {
                mapping.users++;
                reused++;
                return new Use(mapping);
            }
            sweep();
            // Opened under the lock: two threads importing the first blocks of one arena must not both open it.
            Mapping fresh = new Mapping(key, requireNonNull(opener.get(), "opener returned null"));
            mappings.put(key, fresh);
            fresh.users++;
            opened++;
            return new Use(fresh);
        }
    }

    /** Closes the idle mappings of exporters that no longer run; returns how many were closed. */
    public synchronized int sweep()
    {
        int count = 0;
        for (Mapping mapping : new ArrayList<>(mappings.values())) {
            if (mapping.users == 0 && !ProcessHandle.of(mapping.key.exporterPid).map(ProcessHandle::isAlive).orElse(false)) {
                retire(mapping);
                count++;
            }
        }
        return count;
    }

    /** The peer process {@code exporterPid} departed: its mappings close now, or with their last use. Returns how many there were. */
    public synchronized int closePeer(long exporterPid)
    {
        List<Mapping> peer = new ArrayList<>();
        for (Mapping mapping : mappings.values()) {
            if (mapping.key.exporterPid == exporterPid) {
                peer.add(mapping);
            }
        }
        peer.forEach(this::retire);
        return peer.size();
    }

    private void retire(Mapping mapping)
    {
        mappings.remove(mapping.key, mapping);
        mapping.retired = true;
        if (mapping.users == 0) {
            closeMapping(mapping);
        }
    }

    private void closeMapping(Mapping mapping)
    {
        closedMappings++;
        closer.accept(mapping.mapped);
    }

    private synchronized void release(Mapping mapping)
    {
        mapping.users--;
        if (mapping.users == 0 && mapping.retired) {
            closeMapping(mapping);
        }
    }

    /** Mappings opened so far (a count, not the current number): one per (exporter, arena, importing device) while it stays open. */
    public synchronized long opened()
    {
        return opened;
    }

    /** Imports served by a mapping already open. */
    public synchronized long reused()
    {
        return reused;
    }

    /** Mappings open now. */
    public synchronized int open()
    {
        return mappings.size();
    }

    public synchronized IpcMappingStats stats()
    {
        return new IpcMappingStats(opened, reused, mappings.size());
    }

    /** Mappings closed so far. */
    public synchronized long closedMappings()
    {
        return closedMappings;
    }

    /** Closes every mapping; those in use close with their last use. */
    @Override
    public synchronized void close()
    {
        if (closed) {
            return;
        }
        closed = true;
        for (Mapping mapping : new ArrayList<>(mappings.values())) {
            retire(mapping);
        }
    }

    private record Key(long exporterPid, String arena, int importingDevice) {}

    private final class Mapping
    {
        final Key key;
        final M mapped;
        int users;
        boolean retired;

        Mapping(Key key, M mapped)
        {
            this.key = key;
            this.mapped = mapped;
        }
    }

    /** One import's hold on a mapping; closing twice is harmless. */
    public final class Use
            implements AutoCloseable
    {
        private final Mapping mapping;
        private boolean released;

        private Use(Mapping mapping)
        {
            this.mapping = mapping;
        }

        /** The mapping, valid until this use is closed. */
        public M mapped()
        {
            return mapping.mapped;
        }

        @Override
        public void close()
        {
            synchronized (PeerArenaImports.this) {
                if (released) {
                    return;
                }
                released = true;
            }
            release(mapping);
        }
    }
}
