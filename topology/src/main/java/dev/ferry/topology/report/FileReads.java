package dev.ferry.topology.report;

import dev.ferry.topology.model.FilePlacement;
import dev.ferry.topology.route.RouteDecision;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * How one file of a node would be read.
 *
 * @param placement where the file lives
 * @param decisions one per GPU of the node (GDS or BOUNCE), or a single HOST decision when the node has no GPU
 */
public record FileReads(FilePlacement placement, List<RouteDecision> decisions)
{
    public FileReads
    {
        requireNonNull(placement, "placement is null");
        decisions = List.copyOf(requireNonNull(decisions, "decisions is null"));
    }
}
