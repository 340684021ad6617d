package dev.ferry.topology.route;

import dev.ferry.topology.model.PathClass;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * One explained decision: what was chosen, over what path, how fast, by which rule, what came
 * second, and what vetoed a better route.
 *
 * @param source e.g. {@code GPU0}, {@code node-a}, {@code GPU0@node-a}
 * @param target e.g. {@code GPU1}, {@code mlx5_0}, {@code /data/part-0.parquet}
 * @param route the chosen route
 * @param pathClass the in-node path class, empty between nodes
 * @param path the matrix cell ({@code NV12}, {@code PIX}), {@code NET} between nodes, {@code ?} when unknown
 * @param pathDetail how the in-node path is known, in one line (source, NVLink version, PCIe bottleneck, hops;
 *         see {@link dev.ferry.topology.model.Relation#describe()}); empty between nodes or when no relation is known
 * @param bandwidthGBps the estimated bottleneck bandwidth
 * @param bandwidthSource where the figure came from
 * @param rule the rule that decided, e.g. {@code GPU-GPU: path within p2pLevel and NVML P2P not refused}
 * @param threshold the threshold that applied and its origin, e.g. {@code spark.ferry.route.p2pLevel=PXB (default)}
 * @param runnerUp the next-best route and why it lost, when there is one
 * @param vetoes what ruled out a better route (NVML P2P status, missing peer memory, compat-only cuFile, ...)
 * @param notes risks and unknowns that did not change the decision (IOMMU on, P2P status not probed, ...)
 * @param reason one line for humans
 */
public record RouteDecision(
        String source,
        String target,
        Route route,
        Optional<PathClass> pathClass,
        String path,
        Optional<String> pathDetail,
        double bandwidthGBps,
        String bandwidthSource,
        String rule,
        String threshold,
        Optional<RunnerUp> runnerUp,
        List<String> vetoes,
        List<String> notes,
        String reason)
{
    public RouteDecision
    {
        requireNonNull(source, "source is null");
        requireNonNull(target, "target is null");
        requireNonNull(route, "route is null");
        requireNonNull(pathClass, "pathClass is null");
        requireNonNull(path, "path is null");
        requireNonNull(pathDetail, "pathDetail is null");
        requireNonNull(bandwidthSource, "bandwidthSource is null");
        requireNonNull(rule, "rule is null");
        requireNonNull(threshold, "threshold is null");
        requireNonNull(runnerUp, "runnerUp is null");
        vetoes = List.copyOf(requireNonNull(vetoes, "vetoes is null"));
        notes = List.copyOf(requireNonNull(notes, "notes is null"));
        requireNonNull(reason, "reason is null");
    }

    /** A decision with no in-node path to describe (between nodes). */
    public RouteDecision(String source, String target, Route route, Optional<PathClass> pathClass, String path, double bandwidthGBps,
            String bandwidthSource, String rule, String threshold, Optional<RunnerUp> runnerUp, List<String> vetoes, List<String> notes, String reason)
    {
        this(source, target, route, pathClass, path, Optional.empty(), bandwidthGBps, bandwidthSource, rule, threshold, runnerUp, vetoes, notes, reason);
    }
}
