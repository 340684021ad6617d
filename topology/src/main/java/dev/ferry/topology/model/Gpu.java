package dev.ferry.topology.model;

import java.util.Optional;
import java.util.OptionalInt;

import static java.util.Objects.requireNonNull;

/**
 * One GPU of a node.
 *
 * @param index the CUDA/NVML index
 * @param name the device name used in relations and matrices, e.g. {@code GPU0}
 * @param model the marketing name, e.g. {@code NVIDIA H100 80GB HBM3}, when known
 * @param uuid e.g. {@code GPU-5c3c...}, when known
 * @param pci the PCI address, when known
 * @param computeCapability e.g. {@code 9.0}, when known (sets the NVLink generation)
 * @param numaNode the NUMA node host staging should use, when known
 * @param cpuAffinity the CPU list close to the GPU, e.g. {@code 0-23,48-71}; empty when unknown
 */
public record Gpu(
        int index,
        String name,
        Optional<String> model,
        Optional<String> uuid,
        Optional<PciAddress> pci,
        Optional<String> computeCapability,
        OptionalInt numaNode,
        String cpuAffinity)
{
    public Gpu
    {
        if (index < 0) {
            throw new IllegalArgumentException("GPU index is negative: " + index);
        }
        requireNonNull(name, "name is null");
        requireNonNull(model, "model is null");
        requireNonNull(uuid, "uuid is null");
        requireNonNull(pci, "pci is null");
        requireNonNull(computeCapability, "computeCapability is null");
        requireNonNull(numaNode, "numaNode is null");
        requireNonNull(cpuAffinity, "cpuAffinity is null");
        computeCapability.ifPresent(Gpu::checkComputeCapability);
    }

    /** A GPU known only by its index, named {@code GPU<index>}. */
    public static Gpu of(int index)
    {
        return builder(index).build();
    }

    public static Builder builder(int index)
    {
        return new Builder(index);
    }

    public Builder toBuilder()
    {
        return new Builder(index)
                .name(name)
                .model(model)
                .uuid(uuid)
                .pci(pci)
                .computeCapability(computeCapability)
                .numaNode(numaNode)
                .cpuAffinity(cpuAffinity);
    }

    /** The major SM version, e.g. 90 for compute capability 9.0, when known. */
    public OptionalInt smVersion()
    {
        if (computeCapability.isEmpty()) {
            return OptionalInt.empty();
        }
        String[] parts = computeCapability.get().split("\\.");
        return OptionalInt.of(Integer.parseInt(parts[0]) * 10 + Integer.parseInt(parts[1]));
    }

    private static void checkComputeCapability(String value)
    {
        if (!value.matches("\\d{1,2}\\.\\d")) {
            throw new IllegalArgumentException("Compute capability must look like 9.0, got '" + value + "'");
        }
    }

    public static final class Builder
    {
        private final int index;
        private String name;
        private Optional<String> model = Optional.empty();
        private Optional<String> uuid = Optional.empty();
        private Optional<PciAddress> pci = Optional.empty();
        private Optional<String> computeCapability = Optional.empty();
        private OptionalInt numaNode = OptionalInt.empty();
        private String cpuAffinity = "";

        private Builder(int index)
        {
            this.index = index;
            this.name = "GPU" + index;
        }

        public Builder name(String name)
        {
            this.name = requireNonNull(name, "name is null");
            return this;
        }

        public Builder model(Optional<String> model)
        {
            this.model = requireNonNull(model, "model is null");
            return this;
        }

        public Builder model(String model)
        {
            return model(Optional.of(model));
        }

        public Builder uuid(Optional<String> uuid)
        {
            this.uuid = requireNonNull(uuid, "uuid is null");
            return this;
        }

        public Builder uuid(String uuid)
        {
            return uuid(Optional.of(uuid));
        }

        public Builder pci(Optional<PciAddress> pci)
        {
            this.pci = requireNonNull(pci, "pci is null");
            return this;
        }

        public Builder pci(PciAddress pci)
        {
            return pci(Optional.of(pci));
        }

        public Builder computeCapability(Optional<String> computeCapability)
        {
            this.computeCapability = requireNonNull(computeCapability, "computeCapability is null");
            return this;
        }

        public Builder computeCapability(String computeCapability)
        {
            return computeCapability(Optional.of(computeCapability));
        }

        public Builder numaNode(OptionalInt numaNode)
        {
            this.numaNode = requireNonNull(numaNode, "numaNode is null");
            return this;
        }

        public Builder numaNode(int numaNode)
        {
            return numaNode(OptionalInt.of(numaNode));
        }

        public Builder cpuAffinity(String cpuAffinity)
        {
            this.cpuAffinity = requireNonNull(cpuAffinity, "cpuAffinity is null");
            return this;
        }

        public Gpu build()
        {
            return new Gpu(index, name, model, uuid, pci, computeCapability, numaNode, cpuAffinity);
        }
    }
}
