package dev.ferry.topology.probe;

import dev.ferry.topology.model.Gpu;
import dev.ferry.topology.model.KernelFact;
import dev.ferry.topology.model.KernelFacts;
import dev.ferry.topology.model.NetInterface;
import dev.ferry.topology.model.Nic;
import dev.ferry.topology.model.NodeTopology;
import dev.ferry.topology.model.NvSwitch;
import dev.ferry.topology.model.NvmeDrive;
import dev.ferry.topology.model.P2pStatus;
import dev.ferry.topology.model.PciAddress;
import dev.ferry.topology.model.PeerMemory;
import dev.ferry.topology.model.Presence;
import dev.ferry.topology.model.ProbeReport;
import dev.ferry.topology.probe.nvml.NvLinkEndpoint;
import dev.ferry.topology.probe.nvml.NvmlGpu;
import dev.ferry.topology.probe.nvml.NvmlLoader;
import dev.ferry.topology.probe.nvml.NvmlProbe;
import dev.ferry.topology.probe.nvml.NvmlProbeResult;
import dev.ferry.topology.probe.nvml.NvmlSnapshot;
import dev.ferry.topology.probe.sysfs.SysfsPciDevice;
import dev.ferry.topology.probe.sysfs.SysfsRdmaDevice;
import dev.ferry.topology.probe.sysfs.SysfsReader;
import dev.ferry.topology.probe.sysfs.SysfsSnapshot;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * Probes one machine into a {@link NodeTopology}: sysfs for the PCI tree, RDMA NICs, network
 * interfaces, NVMe and kernel modules; NVML, when enabled and loadable, for GPU identity, NVLinks and
 * P2P status (NVML wins where both speak). Every probe leaves a {@link ProbeReport} saying what it saw
 * or why it could not look, and nothing here throws because a device, driver or file is missing.
 */
public final class MachineProber
{
    private MachineProber() {}

    /** Probes with the real NVML when {@link ProbeOptions#useNvml()} is set. Never throws for missing hardware. */
    public static NodeTopology probe(ProbeOptions options)
    {
        requireNonNull(options, "options is null");
        NvmlProbeResult nvml = options.useNvml()
                ? NvmlProbe.probe(NvmlLoader.system())
                : NvmlProbeResult.disabled("NVML not asked (disabled by the probe options, e.g. for an offline sysfs tree)");
        return probe(options, nvml);
    }

    /** Combines sysfs under {@code options} with an NVML result obtained elsewhere (tests pass a fake library's). */
    public static NodeTopology probe(ProbeOptions options, NvmlProbeResult nvml)
    {
        requireNonNull(options, "options is null");
        requireNonNull(nvml, "nvml is null");
        SysfsReader reader = new SysfsReader(options.sysfsRoot());
        SysfsSnapshot sysfs = SysfsSnapshot.scan(reader);
        NodeTopology.Builder node = NodeTopology.builder(ProcFacts.hostname(options.procRoot()));
        ProcFacts.cpu(options.procRoot()).ifPresent(node::cpu);
        Path pciDevices = reader.path("bus/pci/devices");

        node.report(sysfs.pciBusPresent()
                ? ProbeReport.ran("sysfs", sysfs.pciDevices().size() + " PCI functions in " + pciDevices)
                : ProbeReport.skipped("sysfs", "no " + pciDevices + ": sysfs not mounted or not Linux; PCI tree, NICs and NVMe unknown"));
        node.report(nvml.report());

        Optional<NvmlSnapshot> snapshot = nvml.snapshot();
        Map<String, NvmlGpu> nvmlGpus = new HashMap<>();
        List<Gpu> gpus = gpus(sysfs, snapshot, nvmlGpus);
        gpus.forEach(node::gpu);
        node.report(gpuReport(sysfs, snapshot, gpus, pciDevices));

        // Device names must be unique across kinds; the first kind to claim a name keeps it
        Set<String> taken = new HashSet<>();
        gpus.forEach(gpu -> taken.add(gpu.name()));
        List<SysfsPciDevice> switches = sysfs.nvSwitches();
        for (int index = 0; index < switches.size(); index++) {
            NvSwitch nvSwitch = new NvSwitch("NVSwitch" + index, Optional.of(switches.get(index).address()));
            if (taken.add(nvSwitch.name())) {
                node.nvSwitch(nvSwitch);
            }
        }
        nvSwitchReport(switches, snapshot).ifPresent(node::report);

        List<Nic> nics = nics(sysfs).stream().filter(nic -> taken.add(nic.name())).toList();
        nics.forEach(node::nic);
        node.report(rdmaReport(sysfs, nics, reader));

        for (NetInterface netInterface : sysfs.netInterfaces()) {
            if (taken.add(netInterface.name())) {
                node.netInterface(netInterface);
            }
        }
        node.report(netReport(sysfs.netInterfaces(), reader));

        List<NvmeDrive> drives = sysfs.nvmeDrives().stream().filter(drive -> taken.add(drive.controller())).toList();
        drives.forEach(node::nvme);
        node.report(nvmeReport(drives, reader));

        List<PciEndpoint> endpoints = endpoints(gpus, nics, drives);
        DeviceRelations relations = new DeviceRelations(sysfs, snapshot, nvmlGpus);
        List<String> unplaced = new ArrayList<>();
        relations.relate(endpoints, unplaced).forEach(node::relation);
        node.report(pcieReport(sysfs, endpoints, unplaced, relations));

        Set<String> gpuNames = gpus.stream().map(Gpu::name).collect(Collectors.toSet());
        for (P2pStatus status : snapshot.map(NvmlSnapshot::p2pStatuses).orElse(List.of())) {
            if (gpuNames.contains(status.a()) && gpuNames.contains(status.b())) {
                node.p2pStatus(status);
            }
        }

        KernelFacts kernel = sysfs.pciBusPresent()
                ? sysfs.kernelFacts()
                : KernelFacts.unknown("no sysfs at " + options.sysfsRoot());
        node.kernelFacts(kernel);
        node.report(peerMemoryReport(kernel.peerMemory()));
        node.report(factReport("nvidia_fs", kernel.nvidiaFs()));
        node.report(factReport("iommu", kernel.iommu()));
        node.report(sysfs.numaNodes().isEmpty()
                ? ProbeReport.skipped("numa", "no " + reader.path("devices/system/node") + "/node*: NUMA layout unknown")
                : ProbeReport.ran("numa", sysfs.numaNodes().entrySet().stream()
                        .map(entry -> "node" + entry.getKey() + " cpus " + (entry.getValue().isEmpty() ? "none" : entry.getValue()))
                        .collect(Collectors.joining(", "))));
        return node.build();
    }

    /**
     * NVML's GPUs when it answered, in NVML's index order (what {@code nvidia-smi} prints), with the NUMA
     * node from sysfs; otherwise the NVIDIA GPUs sysfs shows, in address order (NVML's usual order too).
     */
    private static List<Gpu> gpus(SysfsSnapshot sysfs, Optional<NvmlSnapshot> snapshot, Map<String, NvmlGpu> nvmlGpus)
    {
        List<Gpu> gpus = new ArrayList<>();
        if (snapshot.isPresent() && !snapshot.get().gpus().isEmpty()) {
            for (NvmlGpu nvmlGpu : snapshot.get().gpus()) {
                Optional<SysfsPciDevice> device = nvmlGpu.pci().flatMap(sysfs::pciDevice);
                OptionalInt numaNode = device.map(SysfsPciDevice::numaNode).orElse(OptionalInt.empty());
                String affinity = nvmlGpu.cpuAffinity().isEmpty() ? cpusOf(sysfs, numaNode) : nvmlGpu.cpuAffinity();
                Gpu gpu = Gpu.builder(nvmlGpu.index())
                        .name(NvmlProbe.gpuName(nvmlGpu.index()))
                        .model(nvmlGpu.name())
                        .uuid(nvmlGpu.uuid())
                        .pci(nvmlGpu.pci())
                        .computeCapability(nvmlGpu.computeCapability())
                        .numaNode(numaNode)
                        .cpuAffinity(affinity)
                        .build();
                gpus.add(gpu);
                nvmlGpus.put(gpu.name(), nvmlGpu);
            }
            return gpus;
        }
        List<SysfsPciDevice> devices = sysfs.nvidiaGpus();
        for (int index = 0; index < devices.size(); index++) {
            SysfsPciDevice device = devices.get(index);
            gpus.add(Gpu.builder(index)
                    .pci(device.address())
                    .numaNode(device.numaNode())
                    .cpuAffinity(cpusOf(sysfs, device.numaNode()))
                    .build());
        }
        return gpus;
    }

    private static String cpusOf(SysfsSnapshot sysfs, OptionalInt numaNode)
    {
        return numaNode.isPresent() ? sysfs.numaNodes().getOrDefault(numaNode.getAsInt(), "") : "";
    }

    private static List<Nic> nics(SysfsSnapshot sysfs)
    {
        List<Nic> nics = new ArrayList<>();
        for (SysfsRdmaDevice device : sysfs.rdmaDevices()) {
            OptionalInt numaNode = device.pci().flatMap(sysfs::pciDevice).map(SysfsPciDevice::numaNode).orElse(OptionalInt.empty());
            nics.add(new Nic(device.name(), device.pci(), device.linkLayer(), device.nicPorts(), numaNode, device.netdevs()));
        }
        return nics;
    }

    private static List<PciEndpoint> endpoints(List<Gpu> gpus, List<Nic> nics, List<NvmeDrive> drives)
    {
        List<PciEndpoint> endpoints = new ArrayList<>();
        gpus.forEach(gpu -> gpu.pci().ifPresent(pci -> endpoints.add(new PciEndpoint(gpu.name(), pci))));
        nics.forEach(nic -> nic.pci().ifPresent(pci -> endpoints.add(new PciEndpoint(nic.name(), pci))));
        drives.forEach(drive -> drive.pci().ifPresent(pci -> endpoints.add(new PciEndpoint(drive.controller(), pci))));
        // Two devices on one function (e.g. a NIC seen twice) cannot be related; keep the first
        Set<PciAddress> seen = new HashSet<>();
        return endpoints.stream().filter(endpoint -> seen.add(endpoint.pci())).toList();
    }

    private static ProbeReport gpuReport(SysfsSnapshot sysfs, Optional<NvmlSnapshot> snapshot, List<Gpu> gpus, Path pciDevices)
    {
        List<SysfsPciDevice> sysfsGpus = sysfs.nvidiaGpus();
        if (gpus.isEmpty()) {
            String where = sysfs.pciBusPresent() ? "no NVIDIA GPU in " + pciDevices : "no NVIDIA GPU seen (no " + pciDevices + ")";
            return ProbeReport.skipped("gpus", where + (snapshot.isPresent() ? " and NVML lists none" : ""));
        }
        String names = gpus.stream()
                .map(gpu -> gpu.name() + gpu.pci().map(pci -> " " + pci).orElse("") + gpu.model().map(model -> " " + model).orElse(""))
                .collect(Collectors.joining(", "));
        if (snapshot.isPresent() && !snapshot.get().gpus().isEmpty()) {
            Set<PciAddress> listed = gpus.stream().flatMap(gpu -> gpu.pci().stream()).collect(Collectors.toSet());
            List<String> hidden = sysfsGpus.stream().map(SysfsPciDevice::address).filter(address -> !listed.contains(address)).map(PciAddress::toString).toList();
            return ProbeReport.ran("gpus", gpus.size() + " GPUs from NVML: " + names
                    + (hidden.isEmpty() ? "" : "; sysfs also shows " + String.join(", ", hidden) + ", which NVML does not list"));
        }
        return ProbeReport.ran("gpus", gpus.size() + " NVIDIA GPUs from sysfs (without NVML: no UUID, compute capability, NVLinks or P2P status): " + names);
    }

    private static Optional<ProbeReport> nvSwitchReport(List<SysfsPciDevice> switches, Optional<NvmlSnapshot> snapshot)
    {
        long switchLinks = snapshot.map(value -> value.gpus().stream()
                .flatMap(gpu -> gpu.nvLinks().stream())
                .filter(link -> link.endpoint() == NvLinkEndpoint.NVSWITCH)
                .count()).orElse(0L);
        if (!switches.isEmpty()) {
            return Optional.of(ProbeReport.ran("nvswitch", switches.size() + " NVSwitches (class 0x068000): "
                    + switches.stream().map(device -> device.address().toString()).collect(Collectors.joining(", "))));
        }
        if (switchLinks > 0) {
            return Optional.of(ProbeReport.ran("nvswitch", switchLinks + " NVLinks end at NVSwitches that sysfs does not show (typical of VMs)"));
        }
        return Optional.empty();
    }

    private static ProbeReport rdmaReport(SysfsSnapshot sysfs, List<Nic> nics, SysfsReader reader)
    {
        Path infiniband = reader.path("class/infiniband");
        if (!sysfs.infinibandClassPresent()) {
            return ProbeReport.skipped("rdma", "no " + infiniband + ": no RDMA NIC (or ib_core not loaded)");
        }
        if (nics.isEmpty()) {
            return ProbeReport.skipped("rdma", infiniband + " is empty: no RDMA NIC");
        }
        return ProbeReport.ran("rdma", nics.stream().map(MachineProber::describe).collect(Collectors.joining(", ")));
    }

    private static String describe(Nic nic)
    {
        String ports = nic.ports().stream()
                .map(port -> "port " + port.number() + " " + port.state() + (port.rateGbps() > 0 ? " " + formatRate(port.rateGbps()) + " Gb/s" : ""))
                .collect(Collectors.joining(", "));
        return nic.name() + nic.pci().map(pci -> " " + pci).orElse(" (no PCI function)") + " " + nic.linkLayer().displayName()
                + (ports.isEmpty() ? "" : " [" + ports + "]");
    }

    private static String formatRate(double rate)
    {
        return rate == Math.rint(rate) ? String.valueOf((long) rate) : String.valueOf(rate);
    }

    private static ProbeReport netReport(List<NetInterface> interfaces, SysfsReader reader)
    {
        if (interfaces.isEmpty()) {
            return ProbeReport.skipped("net", "no device-backed interface in " + reader.path("class/net"));
        }
        return ProbeReport.ran("net", interfaces.stream()
                .map(value -> value.name() + " " + value.kind() + (value.up() ? " up" : " down") + (value.speedMbps() > 0 ? " " + value.speedMbps() + " Mb/s" : ""))
                .collect(Collectors.joining(", ")));
    }

    private static ProbeReport nvmeReport(List<NvmeDrive> drives, SysfsReader reader)
    {
        if (drives.isEmpty()) {
            return ProbeReport.skipped("nvme", "no NVMe controller in " + reader.path("class/nvme"));
        }
        return ProbeReport.ran("nvme", drives.stream()
                .map(drive -> drive.controller() + drive.pci().map(pci -> " " + pci).orElse("") + " " + drive.transport()
                        + (drive.namespaces().isEmpty() ? "" : " " + drive.namespaces()))
                .collect(Collectors.joining(", ")));
    }

    private static ProbeReport pcieReport(SysfsSnapshot sysfs, List<PciEndpoint> endpoints, List<String> unplaced, DeviceRelations relations)
    {
        if (!sysfs.pciBusPresent()) {
            return ProbeReport.skipped("pcie", "no PCI tree: path classes between devices unknown");
        }
        List<String> notes = new ArrayList<>();
        List<String> downTrained = relations.downTrained(endpoints);
        notes.add(downTrained.isEmpty() ? "no down-trained device link" : "down-trained: " + String.join(", ", downTrained));
        if (!unplaced.isEmpty()) {
            notes.add("not in the PCI tree, so unrelated: " + String.join(", ", unplaced));
        }
        return ProbeReport.ran("pcie", endpoints.size() + " GPUs/NICs/NVMe placed in the PCI tree; " + String.join("; ", notes));
    }

    private static ProbeReport peerMemoryReport(PeerMemory peerMemory)
    {
        if (peerMemory.presence() == Presence.PRESENT) {
            return ProbeReport.ran("peermem", peerMemory.mechanism().orElse("peer memory") + ": " + peerMemory.evidence());
        }
        return ProbeReport.skipped("peermem", peerMemory.evidence());
    }

    private static ProbeReport factReport(String probe, KernelFact fact)
    {
        return fact.presence() == Presence.UNKNOWN ? ProbeReport.skipped(probe, fact.evidence()) : ProbeReport.ran(probe, fact.presence() + ": " + fact.evidence());
    }
}
