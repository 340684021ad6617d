package dev.ferry.topology.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * How two devices of one node are connected. Symmetric: {@code (a, b)} describes {@code (b, a)} too.
 *
 * @param a a device name (GPU, NIC, NVMe controller or NVSwitch of the node)
 * @param b another device name
 * @param pathClass the path class; {@link PathClass#NVLINK} with {@code nvlinkCount > 0} for NVLink
 * @param nvlinkCount bonded NVLinks between them (the GPU's links to the switches on NVSwitch systems)
 * @param nvlinkVersion the NVLink version, e.g. {@code 4.0}, where NVML reported it; NVLink relations only
 * @param bottleneck the narrowest PCIe link on the path, when known
 * @param source where the fact came from: {@code nvidia-smi}, {@code sysfs}, {@code nvml}, {@code file}
 * @param detail one line on how the path was found, e.g. the PCIe hops walked and why they make this
 *         class, or what the NVLinks end at; empty when the source gives only the class
 */
public record Relation(
        String a,
        String b,
        PathClass pathClass,
        int nvlinkCount,
        Optional<String> nvlinkVersion,
        Optional<PcieLink> bottleneck,
        String source,
        Optional<String> detail)
{
    private static final Pattern VERSION = Pattern.compile("[0-9]+\\.[0-9]+");

    public Relation
    {
        requireNonNull(a, "a is null");
        requireNonNull(b, "b is null");
        requireNonNull(pathClass, "pathClass is null");
        requireNonNull(nvlinkVersion, "nvlinkVersion is null");
        requireNonNull(bottleneck, "bottleneck is null");
        requireNonNull(source, "source is null");
        requireNonNull(detail, "detail is null");
        if (a.equals(b) != (pathClass == PathClass.SELF)) {
            throw new IllegalArgumentException("Only a device and itself are SELF: " + a + ", " + b + " " + pathClass);
        }
        if ((pathClass == PathClass.NVLINK) != (nvlinkCount > 0)) {
            throw new IllegalArgumentException("NVLINK needs a positive link count and only NVLINK has one: "
                    + a + ", " + b + " " + pathClass + " count " + nvlinkCount);
        }
        if (nvlinkVersion.isPresent() && (pathClass != PathClass.NVLINK || !VERSION.matcher(nvlinkVersion.get()).matches())) {
            throw new IllegalArgumentException("Only NVLINK has an NVLink version, written like 4.0: "
                    + a + ", " + b + " " + pathClass + " version '" + nvlinkVersion.get() + "'");
        }
        if (detail.isPresent() && detail.get().isBlank()) {
            throw new IllegalArgumentException("A relation's detail may be absent but not blank: " + a + ", " + b);
        }
    }

    /** A relation with the class, count, bottleneck and source only. */
    public Relation(String a, String b, PathClass pathClass, int nvlinkCount, Optional<PcieLink> bottleneck, String source)
    {
        this(a, b, pathClass, nvlinkCount, Optional.empty(), bottleneck, source, Optional.empty());
    }

    public static Relation pcie(String a, String b, PathClass pathClass, String source)
    {
        return new Relation(a, b, pathClass, 0, Optional.empty(), source);
    }

    public static Relation nvlink(String a, String b, int count, String source)
    {
        return new Relation(a, b, PathClass.NVLINK, count, Optional.empty(), source);
    }

    public Relation withDetail(String detail)
    {
        return new Relation(a, b, pathClass, nvlinkCount, nvlinkVersion, bottleneck, source, Optional.of(detail));
    }

    public Relation withNvlinkVersion(String version)
    {
        return new Relation(a, b, pathClass, nvlinkCount, Optional.of(version), bottleneck, source, detail);
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

    /**
     * The relation in one line, for reports: the cell, where it came from, the NVLink version and PCIe
     * bottleneck when known, then the detail, e.g. {@code PIX from sysfs, PCIe Gen4 x16: both directly below 0000:03:00.0 ...}.
     */
    public String describe()
    {
        List<String> facts = new ArrayList<>();
        facts.add(cell() + " from " + source);
        nvlinkVersion.ifPresent(version -> facts.add("NVLink " + version));
        bottleneck.filter(PcieLink::isKnown).ifPresent(link -> facts.add("PCIe Gen" + link.gen() + " x" + link.width()));
        return String.join(", ", facts) + detail.map(text -> ": " + text).orElse("");
    }
}
