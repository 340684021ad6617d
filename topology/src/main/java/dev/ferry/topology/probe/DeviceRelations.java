package dev.ferry.topology.probe;

import dev.ferry.topology.model.PcieLink;
import dev.ferry.topology.model.Relation;
import dev.ferry.topology.probe.nvml.NvmlConstants;
import dev.ferry.topology.probe.nvml.NvmlGpu;
import dev.ferry.topology.probe.nvml.NvmlSnapshot;
import dev.ferry.topology.probe.sysfs.PciPath;
import dev.ferry.topology.probe.sysfs.PciPathClassifier;
import dev.ferry.topology.probe.sysfs.PcieLinkReading;
import dev.ferry.topology.probe.sysfs.SysfsPciDevice;
import dev.ferry.topology.probe.sysfs.SysfsSnapshot;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

import static java.util.Objects.requireNonNull;

/**
 * Relations between every pair of PCI-attached devices (GPUs, RDMA NICs, NVMe controllers): NVLink
 * from NVML where two GPUs share NVLinks, otherwise the PCIe path class from the sysfs tree.
 */
final class DeviceRelations
{
    private final SysfsSnapshot sysfs;
    private final PciPathClassifier classifier;
    private final Optional<NvmlSnapshot> nvml;
    private final Map<String, NvmlGpu> nvmlGpus;

    DeviceRelations(SysfsSnapshot sysfs, Optional<NvmlSnapshot> nvml, Map<String, NvmlGpu> nvmlGpus)
    {
        this.sysfs = requireNonNull(sysfs, "sysfs is null");
        this.classifier = new PciPathClassifier(sysfs.pciDevices());
        this.nvml = requireNonNull(nvml, "nvml is null");
        this.nvmlGpus = Map.copyOf(requireNonNull(nvmlGpus, "nvmlGpus is null"));
    }

    /**
     * @param endpoints devices in display order
     * @param unplaced receives a note for each device whose PCI function sysfs does not show
     */
    List<Relation> relate(List<PciEndpoint> endpoints, List<String> unplaced)
    {
        List<Relation> relations = new ArrayList<>();
        for (PciEndpoint endpoint : endpoints) {
            if (sysfs.pciDevice(endpoint.pci()).isEmpty()) {
                unplaced.add(endpoint.name() + " (" + endpoint.pci() + ")");
            }
        }
        for (int first = 0; first < endpoints.size(); first++) {
            for (int second = first + 1; second < endpoints.size(); second++) {
                relation(endpoints.get(first), endpoints.get(second)).ifPresent(relations::add);
            }
        }
        return List.copyOf(relations);
    }

    /** Down-trained links between each device and its host bridge, as {@code name: reading}. */
    List<String> downTrained(List<PciEndpoint> endpoints)
    {
        List<String> notes = new ArrayList<>();
        for (PciEndpoint endpoint : endpoints) {
            sysfs.pciDevice(endpoint.pci()).ifPresent(device -> {
                PcieLinkReading uplink = classifier.uplink(device);
                if (uplink.isWidthDownTrained() || device.link().isWidthDownTrained()) {
                    notes.add(endpoint.name() + " " + endpoint.pci() + " " + (device.link().isWidthDownTrained() ? device.link() : uplink));
                }
            });
        }
        return notes;
    }

    private Optional<Relation> relation(PciEndpoint first, PciEndpoint second)
    {
        NvmlGpu firstGpu = nvmlGpus.get(first.name());
        NvmlGpu secondGpu = nvmlGpus.get(second.name());
        if (nvml.isPresent() && firstGpu != null && secondGpu != null) {
            int links = nvml.get().nvLinkCount(firstGpu, secondGpu);
            if (links > 0) {
                Relation nvlink = Relation.nvlink(first.name(), second.name(), links, "nvml")
                        .withDetail(nvml.get().nvLinkDetail(firstGpu, secondGpu));
                OptionalInt version = nvml.get().nvLinkVersion(firstGpu, secondGpu);
                Optional<String> versionName = version.isPresent() ? NvmlConstants.nvLinkVersionName(version.getAsInt()) : Optional.empty();
                return Optional.of(versionName.map(nvlink::withNvlinkVersion).orElse(nvlink));
            }
        }
        Optional<SysfsPciDevice> left = sysfs.pciDevice(first.pci());
        Optional<SysfsPciDevice> right = sysfs.pciDevice(second.pci());
        if (left.isEmpty() || right.isEmpty()) {
            return Optional.empty();
        }
        PciPath path = classifier.classify(left.get(), right.get());
        return Optional.of(new Relation(first.name(), second.name(), path.pathClass(), 0, toLink(path.bottleneck()), "sysfs")
                .withDetail(path.describe()));
    }

    static Optional<PcieLink> toLink(PcieLinkReading reading)
    {
        if (!reading.isKnown() || reading.effectiveGeneration() > 6) {
            return Optional.empty();
        }
        return Optional.of(new PcieLink(reading.effectiveGeneration(), reading.effectiveWidth()));
    }
}
