package dev.ferry.topology.probe.nvml;

import dev.ferry.topology.model.P2pStatus;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

import static java.util.Objects.requireNonNull;

/**
 * What NVML reported about the machine's GPUs.
 *
 * @param driverVersion e.g. {@code 550.54.15}; empty when NVML would not say
 * @param gpus in NVML index order
 * @param p2pStatuses READ and WRITE status for every GPU pair, named {@code GPU<index>}
 * @param warnings calls that failed without stopping the probe, for the report
 */
public record NvmlSnapshot(String driverVersion, List<NvmlGpu> gpus, List<P2pStatus> p2pStatuses, List<String> warnings)
{
    public NvmlSnapshot
    {
        requireNonNull(driverVersion, "driverVersion is null");
        gpus = List.copyOf(requireNonNull(gpus, "gpus is null"));
        p2pStatuses = List.copyOf(requireNonNull(p2pStatuses, "p2pStatuses is null"));
        warnings = List.copyOf(requireNonNull(warnings, "warnings is null"));
    }

    /**
     * The NVLinks between two GPUs: cables between them, plus, when both reach NVSwitches, the smaller
     * of their switch link counts (what {@code nvidia-smi} prints as {@code NV18} on an HGX H100).
     */
    public int nvLinkCount(NvmlGpu first, NvmlGpu second)
    {
        int direct = second.pci().map(first::directLinkCount).orElse(0);
        int switched = Math.min(first.switchLinkCount(), second.switchLinkCount());
        return direct + switched;
    }

    /**
     * The NVLink version ({@code nvmlNvlinkVersion_t}) of the links {@link #nvLinkCount} counts, when NVML
     * reported one; the oldest when they differ. Empty when NVML would not say for any of them.
     */
    public OptionalInt nvLinkVersion(NvmlGpu first, NvmlGpu second)
    {
        List<NvmlLink> links = new ArrayList<>();
        second.pci().ifPresent(peer -> links.addAll(first.directLinks(peer)));
        first.pci().ifPresent(peer -> links.addAll(second.directLinks(peer)));
        if (Math.min(first.switchLinkCount(), second.switchLinkCount()) > 0) {
            links.addAll(first.switchLinks());
            links.addAll(second.switchLinks());
        }
        return links.stream().mapToInt(NvmlLink::version).filter(version -> version > 0).min();
    }

    /** What the NVLinks between two GPUs are, e.g. {@code 4 cabled directly} or {@code 18 through NVSwitches}. */
    public String nvLinkDetail(NvmlGpu first, NvmlGpu second)
    {
        List<String> parts = new ArrayList<>();
        int direct = second.pci().map(first::directLinkCount).orElse(0);
        if (direct > 0) {
            parts.add(direct + " cabled directly");
        }
        int switched = Math.min(first.switchLinkCount(), second.switchLinkCount());
        if (switched > 0) {
            parts.add(switched + " through NVSwitches (" + NvmlProbe.gpuName(first.index()) + " has " + first.switchLinkCount() + " switch links, "
                    + NvmlProbe.gpuName(second.index()) + " " + second.switchLinkCount() + ")");
        }
        return "NVLinks " + String.join(" and ", parts);
    }
}
