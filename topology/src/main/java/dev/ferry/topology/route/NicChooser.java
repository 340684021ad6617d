package dev.ferry.topology.route;

import dev.ferry.topology.model.LinkLayer;
import dev.ferry.topology.model.Nic;
import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.model.PathClass;
import dev.ferry.topology.model.Relation;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/** Picks the NIC a GPU should use: closest path first, then highest rate, then name for a stable answer. */
final class NicChooser
{
    private NicChooser() {}

    static Optional<Nic> bestFor(NodeTopology node, String gpu, List<Nic> candidates)
    {
        Comparator<Nic> order = Comparator.<Nic>comparingInt(nic -> distance(node, gpu, nic))
                .thenComparing(Comparator.comparingDouble(Nic::activeRateGbps).reversed())
                .thenComparing(Nic::name);
        return candidates.stream().min(order);
    }

    /** Active NICs of one link layer. */
    static List<Nic> active(NodeTopology node, LinkLayer layer)
    {
        return node.nics().stream()
                .filter(Nic::isActive)
                .filter(nic -> nic.linkLayer() == layer)
                .toList();
    }

    private static int distance(NodeTopology node, String gpu, Nic nic)
    {
        // NCCL order (NODE as PHB); an unknown relation sorts after SYS
        return node.relation(gpu, nic.name())
                .map(Relation::pathClass)
                .map(pathClass -> pathClass.ncclEquivalent().ordinal() * 2 + (pathClass == PathClass.NODE ? 1 : 0))
                .orElse(Integer.MAX_VALUE);
    }
}
