package dev.ferry.topology.probe.sysfs;

import dev.ferry.topology.model.PathClass;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The PCIe route between two functions of one machine.
 *
 * @param pathClass how {@code nvidia-smi topo -m} would label it (never NVLINK: sysfs cannot see NVLinks)
 * @param hops the functions and host bridges walked, from the first device to the second
 * @param bottleneck the narrowest and slowest PCIe link on the way (both ends of every link compared)
 * @param downTrained whether some link on the way negotiated fewer lanes than both its ends support
 * @param reason one sentence saying why this class was chosen
 */
public record PciPath(PathClass pathClass, List<String> hops, PcieLinkReading bottleneck, boolean downTrained, String reason)
{
    public PciPath
    {
        requireNonNull(pathClass, "pathClass is null");
        hops = List.copyOf(requireNonNull(hops, "hops is null"));
        requireNonNull(bottleneck, "bottleneck is null");
        requireNonNull(reason, "reason is null");
    }

    /**
     * One line: why this class, then the hops, e.g.
     * {@code both directly below 0000:02:00.0: a single PCIe switch; 0000:03:00.0 - 0000:02:00.0 - 0000:04:00.0}.
     */
    public String describe()
    {
        return reason + "; " + String.join(" - ", hops) + (downTrained ? "; a link on the way runs on fewer lanes than both its ends support" : "");
    }
}
