package dev.ferry.topology.model;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * How two devices of one node are connected. Symmetric: {@code (a, b)} describes {@code (b, a)} too.
 *
 * @param a a device name (GPU, NIC, NVMe controller or NVSwitch of the node)
 * @param b another device name
 * @param pathClass the path class; {@link PathClass#NVLINK} with {@code nvlinkCount > 0} for NVLink
 * @param nvlinkCount bonded NVLinks between them (the GPU's links to the switches on NVSwitch systems)
 * @param bottleneck the narrowest PCIe link on the path, when known
 * @param source where the fact came from: {@code nvidia-smi}, {@code sysfs}, {@code nvml}, {@code file}
 */
public record Relation(String a, String b, PathClass pathClass, int nvlinkCount, Optional<PcieLink> bottleneck, String source)
{
    public Relation
    {
        requireNonNull(a, "a is null");
        requireNonNull(b, "b is null");
        requireNonNull(pathClass, "pathClass is null");
        requireNonNull(bottleneck, "bottleneck is null");
        requireNonNull(source, "source is null");
        if (a.equals(b) != (pathClass == PathClass.SELF)) {
            throw new IllegalArgumentException("Only a device and itself are SELF: " + a + ", " + b + " " + pathClass);
        }
        if ((pathClass == PathClass.NVLINK) != (nvlinkCount > 0)) {
            throw new IllegalArgumentException("NVLINK needs a positive link count and only NVLINK has one: "
                    + a + ", " + b + " " + pathClass + " count " + nvlinkCount);
        }
    }

    public static Relation pcie(String a, String b, PathClass pathClass, String source)
    {
        return new Relation(a, b, pathClass, 0, Optional.empty(), source);
    }

    public static Relation nvlink(String a, String b, int count, String source)
    {
        return new Relation(a, b, PathClass.NVLINK, count, Optional.empty(), source);
    }

    public boolean connects(String x, String y)
    {
        return (a.equals(x) && b.equals(y)) || (a.equals(y) && b.equals(x));
    }

    /** The matrix cell: {@code NV12}, {@code PIX}, ... */
    public String cell()
    {
        return pathClass == PathClass.NVLINK ? "NV" + nvlinkCount : pathClass.label();
    }
}
