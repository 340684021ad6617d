package dev.ferry.shuffle.placement;

import dev.ferry.topology.model.ClusterTopology;

/**
 * The cluster map an executor routes by. From a topology file it never changes; probed, it is the
 * driver's merge of every executor's report, cached here and asked again when a peer's node is not in
 * it yet (a peer that reported after this executor last asked).
 */
public interface ClusterView
{
    /** The cached map; always holds this executor's own node. */
    ClusterTopology cluster();

    /**
     * The map after asking again for {@code missingNode}, or the cached one when a re-ask is not due
     * (re-asks are rate-limited) or the view is fixed. Never throws for an unreachable driver: the
     * cached map stays and the reason is logged.
     */
    ClusterTopology refresh(String missingNode);

    /** Whether {@link #refresh} can ever add nodes (a probed view) or the map is fixed (a topology file). */
    boolean refreshable();

    /** A fixed map: the topology file's. */
    static ClusterView fixed(ClusterTopology cluster)
    {
        return new ClusterView()
        {
            @Override
            public ClusterTopology cluster()
            {
                return cluster;
            }

            @Override
            public ClusterTopology refresh(String missingNode)
            {
                return cluster;
            }

            @Override
            public boolean refreshable()
            {
                return false;
            }
        };
    }
}
