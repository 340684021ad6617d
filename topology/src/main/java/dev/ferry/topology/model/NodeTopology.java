package dev.ferry.topology.model;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * Everything known about one machine: its devices, how they are connected, kernel facts, and what
 * each probe could or could not see. Immutable; build it with {@link #builder(String)}.
 * <p>
 * Device names are unique across GPUs, NVSwitches, NICs, network interfaces and NVMe controllers,
 * and every relation and P2P status names devices of this node, so lookups are unambiguous.
 */
public final class NodeTopology
{
    private final String hostname;
    private final List<Gpu> gpus;
    private final List<NvSwitch> nvSwitches;
    private final List<Nic> nics;
    private final List<NetInterface> netInterfaces;
    private final List<NvmeDrive> nvmes;
    private final List<Relation> relations;
    private final List<P2pStatus> p2pStatuses;
    private final KernelFacts kernelFacts;
    private final List<ProbeReport> reports;
    private final Optional<CpuInfo> cpu;

    private NodeTopology(Builder builder)
    {
        this.hostname = builder.hostname;
        this.gpus = List.copyOf(builder.gpus);
        this.nvSwitches = List.copyOf(builder.nvSwitches);
        this.nics = List.copyOf(builder.nics);
        this.netInterfaces = List.copyOf(builder.netInterfaces);
        this.nvmes = List.copyOf(builder.nvmes);
        this.relations = List.copyOf(builder.relations);
        this.p2pStatuses = List.copyOf(builder.p2pStatuses);
        this.kernelFacts = builder.kernelFacts;
        this.reports = List.copyOf(builder.reports);
        this.cpu = builder.cpu;
        validate();
    }

    public static Builder builder(String hostname)
    {
        return new Builder(hostname);
    }

    public Builder toBuilder()
    {
        Builder builder = new Builder(hostname)
                .kernelFacts(kernelFacts)
                .cpu(cpu);
        gpus.forEach(builder::gpu);
        nvSwitches.forEach(builder::nvSwitch);
        nics.forEach(builder::nic);
        netInterfaces.forEach(builder::netInterface);
        nvmes.forEach(builder::nvme);
        relations.forEach(builder::relation);
        p2pStatuses.forEach(builder::p2pStatus);
        reports.forEach(builder::report);
        return builder;
    }

    public String hostname()
    {
        return hostname;
    }

    public List<Gpu> gpus()
    {
        return gpus;
    }

    public List<NvSwitch> nvSwitches()
    {
        return nvSwitches;
    }

    public List<Nic> nics()
    {
        return nics;
    }

    public List<NetInterface> netInterfaces()
    {
        return netInterfaces;
    }

    public List<NvmeDrive> nvmes()
    {
        return nvmes;
    }

    public List<Relation> relations()
    {
        return relations;
    }

    public List<P2pStatus> p2pStatuses()
    {
        return p2pStatuses;
    }

    public KernelFacts kernelFacts()
    {
        return kernelFacts;
    }

    public List<ProbeReport> reports()
    {
        return reports;
    }

    public Optional<CpuInfo> cpu()
    {
        return cpu;
    }

    public Optional<Gpu> gpu(String name)
    {
        return gpus.stream().filter(gpu -> gpu.name().equals(name)).findFirst();
    }

    public Optional<Nic> nic(String name)
    {
        return nics.stream().filter(nic -> nic.name().equals(name)).findFirst();
    }

    public Optional<NvmeDrive> nvme(String controller)
    {
        return nvmes.stream().filter(nvme -> nvme.controller().equals(controller)).findFirst();
    }

    /** The relation between two devices in either order; a device and itself are SELF even if not listed. */
    public Optional<Relation> relation(String a, String b)
    {
        if (a.equals(b) && deviceNames().contains(a)) {
            return Optional.of(Relation.pcie(a, b, PathClass.SELF, "identity"));
        }
        return relations.stream().filter(relation -> relation.connects(a, b)).findFirst();
    }

    /** NVML's P2P status for a GPU pair, in either order. */
    public Optional<P2pStatus> p2pStatus(String a, String b)
    {
        return p2pStatuses.stream().filter(status -> status.connects(a, b)).findFirst();
    }

    /** Names of all devices relations may refer to. */
    public Set<String> deviceNames()
    {
        Set<String> names = new HashSet<>();
        gpus.forEach(gpu -> names.add(gpu.name()));
        nvSwitches.forEach(nvSwitch -> names.add(nvSwitch.name()));
        nics.forEach(nic -> names.add(nic.name()));
        netInterfaces.forEach(netInterface -> names.add(netInterface.name()));
        nvmes.forEach(nvme -> names.add(nvme.controller()));
        return names;
    }

    private void validate()
    {
        Set<String> names = new HashSet<>();
        List<String> all = new ArrayList<>();
        gpus.forEach(gpu -> all.add(gpu.name()));
        nvSwitches.forEach(nvSwitch -> all.add(nvSwitch.name()));
        nics.forEach(nic -> all.add(nic.name()));
        netInterfaces.forEach(netInterface -> all.add(netInterface.name()));
        nvmes.forEach(nvme -> all.add(nvme.controller()));
        for (String name : all) {
            if (!names.add(name)) {
                throw new IllegalArgumentException("Node " + hostname + ": device name used twice: " + name);
            }
        }
        Set<Integer> indexes = new HashSet<>();
        for (Gpu gpu : gpus) {
            if (!indexes.add(gpu.index())) {
                throw new IllegalArgumentException("Node " + hostname + ": GPU index used twice: " + gpu.index());
            }
        }
        for (Relation relation : relations) {
            checkKnown(names, relation.a(), "relation");
            checkKnown(names, relation.b(), "relation");
        }
        for (P2pStatus status : p2pStatuses) {
            checkGpu(status.a());
            checkGpu(status.b());
        }
    }

    private void checkKnown(Set<String> names, String name, String what)
    {
        if (!names.contains(name)) {
            throw new IllegalArgumentException("Node " + hostname + ": " + what + " names unknown device " + name);
        }
    }

    private void checkGpu(String name)
    {
        if (gpu(name).isEmpty()) {
            throw new IllegalArgumentException("Node " + hostname + ": P2P status names unknown GPU " + name);
        }
    }

    @Override
    public boolean equals(Object other)
    {
        if (this == other) {
            return true;
        }
        if (!(other instanceof NodeTopology that)) {
            return false;
        }
        return hostname.equals(that.hostname)
                && gpus.equals(that.gpus)
                && nvSwitches.equals(that.nvSwitches)
                && nics.equals(that.nics)
                && netInterfaces.equals(that.netInterfaces)
                && nvmes.equals(that.nvmes)
                && relations.equals(that.relations)
                && p2pStatuses.equals(that.p2pStatuses)
                && kernelFacts.equals(that.kernelFacts)
                && reports.equals(that.reports)
                && cpu.equals(that.cpu);
    }

    @Override
    public int hashCode()
    {
        return Objects.hash(hostname, gpus, nvSwitches, nics, netInterfaces, nvmes, relations, p2pStatuses, kernelFacts, reports, cpu);
    }

    @Override
    public String toString()
    {
        return "NodeTopology{" + hostname + ": " + gpus.size() + " GPUs, " + nics.size() + " RDMA NICs, "
                + netInterfaces.size() + " interfaces, " + nvmes.size() + " NVMe, " + relations.size() + " relations}";
    }

    /** Collects a node's facts. Adding a relation or P2P status for a pair already present replaces it, so a better source can override. */
    public static final class Builder
    {
        private String hostname;
        private final List<Gpu> gpus = new ArrayList<>();
        private final List<NvSwitch> nvSwitches = new ArrayList<>();
        private final List<Nic> nics = new ArrayList<>();
        private final List<NetInterface> netInterfaces = new ArrayList<>();
        private final List<NvmeDrive> nvmes = new ArrayList<>();
        private final List<Relation> relations = new ArrayList<>();
        private final List<P2pStatus> p2pStatuses = new ArrayList<>();
        private KernelFacts kernelFacts = KernelFacts.unknown("not probed");
        private final List<ProbeReport> reports = new ArrayList<>();
        private Optional<CpuInfo> cpu = Optional.empty();

        private Builder(String hostname)
        {
            this.hostname = requireNonNull(hostname, "hostname is null");
        }

        public Builder hostname(String hostname)
        {
            this.hostname = requireNonNull(hostname, "hostname is null");
            return this;
        }

        public Builder gpu(Gpu gpu)
        {
            gpus.add(requireNonNull(gpu, "gpu is null"));
            return this;
        }

        /** Replaces the GPU with the same name (e.g. to add facts a capture lacks). */
        public Builder replaceGpu(Gpu gpu)
        {
            requireNonNull(gpu, "gpu is null");
            gpus.replaceAll(existing -> existing.name().equals(gpu.name()) ? gpu : existing);
            return this;
        }

        public Builder nvSwitch(NvSwitch nvSwitch)
        {
            nvSwitches.add(requireNonNull(nvSwitch, "nvSwitch is null"));
            return this;
        }

        public Builder nic(Nic nic)
        {
            nics.add(requireNonNull(nic, "nic is null"));
            return this;
        }

        /** Replaces the NIC with the same name (e.g. to add the link layer a capture lacks). */
        public Builder replaceNic(Nic nic)
        {
            requireNonNull(nic, "nic is null");
            nics.replaceAll(existing -> existing.name().equals(nic.name()) ? nic : existing);
            return this;
        }

        public Builder netInterface(NetInterface netInterface)
        {
            netInterfaces.add(requireNonNull(netInterface, "netInterface is null"));
            return this;
        }

        public Builder nvme(NvmeDrive nvme)
        {
            nvmes.add(requireNonNull(nvme, "nvme is null"));
            return this;
        }

        public Builder relation(Relation relation)
        {
            requireNonNull(relation, "relation is null");
            relations.removeIf(existing -> existing.connects(relation.a(), relation.b()));
            relations.add(relation);
            return this;
        }

        public Builder p2pStatus(P2pStatus status)
        {
            requireNonNull(status, "status is null");
            p2pStatuses.removeIf(existing -> existing.connects(status.a(), status.b()));
            p2pStatuses.add(status);
            return this;
        }

        public Builder kernelFacts(KernelFacts kernelFacts)
        {
            this.kernelFacts = requireNonNull(kernelFacts, "kernelFacts is null");
            return this;
        }

        public Builder report(ProbeReport report)
        {
            reports.add(requireNonNull(report, "report is null"));
            return this;
        }

        public Builder cpu(Optional<CpuInfo> cpu)
        {
            this.cpu = requireNonNull(cpu, "cpu is null");
            return this;
        }

        public Builder cpu(CpuInfo cpu)
        {
            return cpu(Optional.of(cpu));
        }

        public List<Gpu> gpus()
        {
            return List.copyOf(gpus);
        }

        public List<Nic> nics()
        {
            return List.copyOf(nics);
        }

        /** Builds and validates: unique names, relations and P2P statuses naming known devices. */
        public NodeTopology build()
        {
            return new NodeTopology(this);
        }
    }
}
