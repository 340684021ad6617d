package dev.ferry.shuffle.placement;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import dev.ferry.shuffle.PeerEndpoints;
import dev.ferry.shuffle.transport.FetchedBlocks;
import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.ShuffleTransport;
import dev.ferry.topology.model.ClusterTopology;
import org.apache.arrow.memory.BufferAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.util.Objects.requireNonNull;

/**
 * Routes by a probed {@link ClusterView}: the routing transport is built over the map as cached,
 * and a fetch from a peer whose node is not in it asks the view again (rate-limited there) before
 * the route is decided, so a peer that reported after this executor last asked still gets the route
 * its probed hardware calls for, decided by the same route policy as with a topology file. When the
 * re-ask adds nodes the routing transport is rebuilt over the larger map (its per-peer choices are
 * decided again; connections, counters, the route log and the device block reader with its pinned
 * host landing pool are shared, so a rebuild allocates no pinned memory). Rebuilds are capped
 * ({@link #MAX_REBUILDS}): past the cap an unknown peer's node stays unknown and its blocks go over
 * TCP, with that reason in the route log. Thread-safe.
 */
public final class ClusterViewTransport
        implements ShuffleTransport
{
    private static final Logger LOG = LoggerFactory.getLogger(ClusterViewTransport.class);
    static final int MAX_REBUILDS = 8;

    private final ClusterView view;
    private final Function<ClusterTopology, ShuffleTransport> routing;
    private final List<ShuffleTransport> retired = new ArrayList<>();
    private final AtomicLong rebuilds = new AtomicLong();
    private ClusterTopology cluster;
    private ShuffleTransport current;

    /** {@code routing}: builds the routing transport over a map (the same stream, counters and log each time). */
    public ClusterViewTransport(ClusterView view, Function<ClusterTopology, ShuffleTransport> routing)
    {
        this.view = requireNonNull(view, "view is null");
        this.routing = requireNonNull(routing, "routing is null");
        this.cluster = view.cluster();
        this.current = requireNonNull(routing.apply(cluster), "routing transport is null");
    }

    @Override
    public String routeName()
    {
        return "ROUTED";
    }

    /** Times the routing transport was rebuilt over a larger map. */
    public long rebuilds()
    {
        return rebuilds.get();
    }

    /** The map routes are decided by now. */
    public synchronized ClusterTopology cluster()
    {
        return cluster;
    }

    @Override
    public FetchedBlocks fetch(PeerAddress peer, List<ShuffleBlockRef> blocks, BufferAllocator allocator)
            throws IOException
    {
        return transportFor(peer).fetch(peer, blocks, allocator);
    }

    /** The routing transport to decide {@code peer}'s route with: rebuilt first when its node is new and a re-ask knows it. */
    synchronized ShuffleTransport transportFor(PeerAddress peer)
    {
        Optional<ExecutorPlace> place = PeerEndpoints.place(peer.topologyInfo());
        if (place.isEmpty() || cluster.node(place.get().node()).isPresent() || rebuilds.get() >= MAX_REBUILDS) {
            return current;
        }
        ClusterTopology refreshed = view.refresh(place.get().node());
        if (refreshed.node(place.get().node()).isEmpty() || refreshed.nodes().size() <= cluster.nodes().size()) {
            return current;
        }
        ShuffleTransport rebuilt = requireNonNull(routing.apply(refreshed), "routing transport is null");
        retired.add(current);
        current = rebuilt;
        cluster = refreshed;
        LOG.info("Ferry shuffle routes: executor {}'s node {} joined the probed cluster map ({} node(s) now); routes are decided over it",
                peer.executorId(), place.get().node(), refreshed.nodes().size());
        if (rebuilds.incrementAndGet() == MAX_REBUILDS) {
            LOG.warn("Ferry shuffle routes: the routing transport was rebuilt {} times for late-reporting peers; nodes that report later are routed over TCP", MAX_REBUILDS);
        }
        return current;
    }

    @Override
    public synchronized int peerLeft(String executorId)
    {
        // The stream connections are shared by every routing transport built here; the current one closes them.
        int closed = 0;
        for (ShuffleTransport old : retired) {
            closed += old.peerLeft(executorId);
        }
        return closed + current.peerLeft(executorId);
    }

    /**
     * Closes the current routing transport, which closes the shared stream, NIC and device block
     * reader (its pinned landing pool). Retired ones are not closed again: they own nothing else.
     */
    @Override
    public synchronized void close()
    {
        current.close();
    }
}
