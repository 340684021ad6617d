package dev.ferry.shuffle.placement;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/** Where an executor sits in the cluster topology: its node (host name in the topology file) and its GPU, if it has one. */
public record ExecutorPlace(String node, Optional<String> gpu)
{
    public ExecutorPlace
    {
        requireNonNull(node, "node is null");
        requireNonNull(gpu, "gpu is null");
        if (node.isEmpty() || node.contains(";") || node.contains("=")) {
            throw new IllegalArgumentException("Invalid node name '" + node + "'");
        }
        if (gpu.isPresent() && (gpu.get().isEmpty() || gpu.get().contains(";") || gpu.get().contains("="))) {
            throw new IllegalArgumentException("Invalid GPU name '" + gpu.get() + "'");
        }
    }

    @Override
    public String toString()
    {
        return node + gpu.map(name -> "/" + name).orElse("");
    }
}
