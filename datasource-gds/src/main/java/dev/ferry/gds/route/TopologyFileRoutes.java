package dev.ferry.gds.route;

import dev.ferry.gds.io.IoRoute;
import dev.ferry.gds.io.LocalFiles;
import dev.ferry.topology.model.FilePlacement;
import dev.ferry.topology.model.Gpu;
import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.probe.MachineProber;
import dev.ferry.topology.probe.ProbeOptions;
import dev.ferry.topology.probe.mount.FilePlacementProbe;
import dev.ferry.topology.route.FileConsumer;
import dev.ferry.topology.route.RouteDecision;
import dev.ferry.topology.route.RoutePolicy;
import dev.ferry.topology.route.RoutePolicyConfig;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * {@link FileRouteAdvisor} from this machine's topology: the file's placement from the mount table
 * and sysfs ({@link FilePlacementProbe}), the route from {@link RoutePolicy#gpuToFile} for the
 * consumer and the GPU the batch should land on. Where the probed topology does not know that GPU
 * (the simulated backend, or a GPU NVML could not see) the policy still answers a CPU consumer (HOST
 * needs no GPU); for a device consumer only the storage side is judged: GDS when nothing about the
 * filesystem rules it out, BOUNCE otherwise.
 */
public final class TopologyFileRoutes
        implements FileRouteAdvisor
{
    private static volatile NodeTopology localNode;

    private final RoutePolicy policy;
    private final FilePlacementProbe placements;
    private final NodeTopology node;

    public TopologyFileRoutes(RoutePolicy policy, FilePlacementProbe placements, NodeTopology node)
    {
        this.policy = requireNonNull(policy, "policy is null");
        this.placements = requireNonNull(placements, "placements is null");
        this.node = requireNonNull(node, "node is null");
    }

    /** This machine, its topology probed once per JVM ({@code useNvml} on a CUDA backend). */
    public static TopologyFileRoutes localMachine(boolean useNvml)
    {
        NodeTopology probed = localNode;
        if (probed == null) {
            synchronized (TopologyFileRoutes.class) {
                if (localNode == null) {
                    localNode = MachineProber.probe(ProbeOptions.localMachine().withNvml(useNvml));
                }
                probed = localNode;
            }
        }
        return new TopologyFileRoutes(new RoutePolicy(RoutePolicyConfig.defaults()), FilePlacementProbe.localMachine(), probed);
    }

    @Override
    public RouteChoice advise(String file, int device, FileConsumer consumer)
    {
        FilePlacement placement = placements.locate(LocalFiles.localPath(file)).placement();
        List<Gpu> gpus = node.gpus();
        boolean known = device >= 0 && device < gpus.size();
        if (known || consumer == FileConsumer.CPU) {
            String gpu = known ? gpus.get(device).name() : "device " + device;
            RouteDecision decision = policy.gpuToFile(node, Optional.of(gpu), placement, consumer);
            return new RouteChoice(IoRoute.fromPolicy(decision.route()), "topology policy: " + decision.reason(), false);
        }
        List<String> obstacles = policy.storageObstacles(placement);
        String unknown = "device " + device + " is not in the probed topology (" + gpus.size() + " GPU(s) seen), so only the storage side was judged; assumed a "
                + consumer.describe();
        if (obstacles.isEmpty()) {
            return new RouteChoice(IoRoute.GDS, "topology policy: " + placement.filesystemType() + " at " + placement.mountPoint() + " allows GDS; " + unknown, false);
        }
        return new RouteChoice(IoRoute.BOUNCE, "topology policy: GDS ruled out (" + String.join("; ", obstacles) + "); " + unknown, false);
    }
}
