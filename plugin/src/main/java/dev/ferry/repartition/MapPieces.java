package dev.ferry.repartition;

import dev.ferry.shuffle.transport.PeerAddress;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * What one map task of a repartition left in its executor's device store, as the driver hands it
 * to every reduce task: the map output's id, the executor and its block server (with its place in
 * the topology), and per output partition the layout of its packed block (null: no rows).
 */
record MapPieces(int mapIndex, long mapId, String executorId, String host, int port, String topologyInfo, List<PieceLayout> layouts)
        implements Serializable
{
    private static final long serialVersionUID = 1L;

    MapPieces
    {
        requireNonNull(executorId, "executorId is null");
        requireNonNull(host, "host is null");
        requireNonNull(topologyInfo, "topologyInfo is null");
        // May hold nulls (empty partitions): List.copyOf refuses them.
        layouts = Collections.unmodifiableList(new ArrayList<>(requireNonNull(layouts, "layouts is null")));
    }

    PeerAddress peer()
    {
        return new PeerAddress(executorId, host, port, topologyInfo);
    }

    /** The layout of output partition {@code partition}'s block; empty where this map had no rows for it. */
    Optional<PieceLayout> layout(int partition)
    {
        return Optional.ofNullable(layouts.get(partition));
    }

    long rows()
    {
        return layouts.stream().filter(layout -> layout != null).mapToLong(PieceLayout::rows).sum();
    }
}
