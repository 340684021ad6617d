package dev.ferry.topology.probe.sysfs;

import dev.ferry.topology.model.PathClass;
import dev.ferry.topology.model.PciAddress;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

import static java.util.Objects.requireNonNull;

/**
 * Classifies the PCIe route between two functions from their resolved sysfs paths.
 * <p>
 * Below a host bridge a path is root port, then an upstream and a downstream port per switch, then
 * the device. Two devices diverge below their last common function:
 * <ul>
 * <li>nothing in common but the host bridge: {@code PHB};</li>
 * <li>a common function, and no further switch below the point where they part on either side (both
 *     on downstream ports of the same switch, or two functions of one card): {@code PIX}, a single
 *     switch crossed;</li>
 * <li>a common function but another switch below it on at least one side: {@code PXB}, several
 *     switches crossed without reaching the host bridge. The inner level of a two-level Broadcom PEX
 *     switch is not another switch (NCCL flattens these too).</li>
 * <li>different host bridges on the same NUMA node: {@code NODE} (NCCL: PHB); on different NUMA
 *     nodes: {@code SYS}. Two devices whose NUMA node is unknown (-1, typical of single-socket
 *     machines and VMs) count as the same node, as NCCL hangs both off one CPU node.</li>
 * </ul>
 * The bottleneck is the minimum over every link walked, taking for each link the smaller of its two
 * ends (NCCL does the same with the device and its parent port).
 */
public final class PciPathClassifier
{
    private static final int BROADCOM_VENDOR = 0x1000;

    private final Map<PciAddress, SysfsPciDevice> devices;

    /**
     * @param devices every PCI function of the machine, bridges included, so port link speeds are known
     */
    public PciPathClassifier(Map<PciAddress, SysfsPciDevice> devices)
    {
        this.devices = Map.copyOf(requireNonNull(devices, "devices is null"));
    }

    public PciPath classify(SysfsPciDevice first, SysfsPciDevice second)
    {
        requireNonNull(first, "first is null");
        requireNonNull(second, "second is null");
        if (first.address().equals(second.address())) {
            return new PciPath(PathClass.SELF, List.of(first.address().toString()), PcieLinkReading.UNKNOWN, false, "same PCI function");
        }
        if (!first.rootComplex().equals(second.rootComplex())) {
            return acrossHostBridges(first, second);
        }
        List<PciAddress> left = first.chain();
        List<PciAddress> right = second.chain();
        int common = 0;
        while (common < left.size() && common < right.size() && left.get(common).equals(right.get(common))) {
            common++;
        }
        List<String> hops = new ArrayList<>();
        for (int index = left.size() - 1; index >= common; index--) {
            hops.add(left.get(index).toString());
        }
        hops.add(common == 0 ? first.rootComplex() : left.get(common - 1).toString());
        for (int index = common; index < right.size(); index++) {
            hops.add(right.get(index).toString());
        }
        LinkWalk walk = walk(left, common).and(walk(right, common));
        if (common == 0) {
            return new PciPath(PathClass.PHB, hops, walk.bottleneck, walk.downTrained,
                    "only host bridge " + first.rootComplex() + " in common");
        }
        PciAddress parting = left.get(common - 1);
        int switchesBelowLeft = switchesBelow(left, common);
        int switchesBelowRight = switchesBelow(right, common);
        if (switchesBelowLeft == 0 && switchesBelowRight == 0) {
            return new PciPath(PathClass.PIX, hops, walk.bottleneck, walk.downTrained,
                    "both directly below " + parting + ": a single PCIe switch");
        }
        return new PciPath(PathClass.PXB, hops, walk.bottleneck, walk.downTrained,
                "paths part at " + parting + " below root port " + left.get(0) + " and cross " + (switchesBelowLeft + switchesBelowRight + 1)
                        + " PCIe switches, no host bridge");
    }

    /**
     * Switches a device sits below, counted from chain position {@code from}: below the root port
     * (index 0) upstream ports have odd indexes and downstream ports even ones, and the device itself
     * is last. A Broadcom PEX Gen4/Gen5 switch shows up as two levels of switches; like NCCL, the inner
     * level counts as part of the outer switch.
     */
    private int switchesBelow(List<PciAddress> chain, int from)
    {
        int switches = 0;
        for (int index = from; index < chain.size() - 1; index++) {
            if (index % 2 == 1 && !isInnerLevelOfSameSwitch(chain, index)) {
                switches++;
            }
        }
        return switches;
    }

    private boolean isInnerLevelOfSameSwitch(List<PciAddress> chain, int upstreamIndex)
    {
        if (upstreamIndex < 3) {
            return false;
        }
        SysfsPciDevice inner = devices.get(chain.get(upstreamIndex));
        SysfsPciDevice outer = devices.get(chain.get(upstreamIndex - 2));
        if (inner == null || outer == null) {
            return false;
        }
        int generation = broadcomPexGeneration(outer, 0);
        return generation != 0 && broadcomPexGeneration(inner, 1) == generation;
    }

    /**
     * The PEX generation of a Broadcom switch port that presents itself in two levels, 0 for any other
     * port. As NCCL matches them: vendor and subsystem vendor 0x1000; Gen4 device 0xc010 or 0xc012 with
     * subsystem device 0xaxxx; Gen5 device 0xc030 whose subsystem device's top digit is the level
     * (0 for the outer switch, 1 for the inner one).
     */
    static int broadcomPexGeneration(SysfsPciDevice port, int level)
    {
        if (port.vendor() != BROADCOM_VENDOR || port.subsystemVendor() != BROADCOM_VENDOR || port.subsystemDevice() < 0) {
            return 0;
        }
        int subsystemTop = port.subsystemDevice() & 0xf000;
        if ((port.deviceId() == 0xc010 || port.deviceId() == 0xc012) && subsystemTop == 0xa000) {
            return 4;
        }
        if (port.deviceId() == 0xc030 && subsystemTop == level * 0x1000) {
            return 5;
        }
        return 0;
    }

    /** The narrowest link between a device and its host bridge. */
    public PcieLinkReading uplink(SysfsPciDevice device)
    {
        return walk(device.chain(), 0).bottleneck;
    }

    private PciPath acrossHostBridges(SysfsPciDevice first, SysfsPciDevice second)
    {
        List<String> hops = new ArrayList<>();
        for (int index = first.chain().size() - 1; index >= 0; index--) {
            hops.add(first.chain().get(index).toString());
        }
        hops.add(first.rootComplex());
        hops.add(second.rootComplex());
        hops.addAll(second.chain().stream().map(PciAddress::toString).toList());
        LinkWalk walk = walk(first.chain(), 0).and(walk(second.chain(), 0));
        OptionalInt leftNode = first.numaNode();
        OptionalInt rightNode = second.numaNode();
        if (leftNode.equals(rightNode)) {
            String node = leftNode.isPresent() ? "NUMA node " + leftNode.getAsInt() : "unknown NUMA node (-1) on both";
            return new PciPath(PathClass.NODE, hops, walk.bottleneck, walk.downTrained,
                    "host bridges " + first.rootComplex() + " and " + second.rootComplex() + " on the same " + node);
        }
        return new PciPath(PathClass.SYS, hops, walk.bottleneck, walk.downTrained,
                "host bridges on different NUMA nodes (" + nodeText(leftNode) + " and " + nodeText(rightNode) + ")");
    }

    private static String nodeText(OptionalInt node)
    {
        return node.isPresent() ? String.valueOf(node.getAsInt()) : "unknown";
    }

    /** The links from {@code chain[from]} down to the last element, each compared at both ends. */
    private LinkWalk walk(List<PciAddress> chain, int from)
    {
        PcieLinkReading bottleneck = PcieLinkReading.UNKNOWN;
        boolean downTrained = false;
        if (chain.size() == 1) {
            // A device straight on the root bus (VMs): its own reading is all there is
            PcieLinkReading own = reading(chain.get(0));
            return new LinkWalk(own, own.isWidthDownTrained());
        }
        for (int index = Math.max(from, 1); index < chain.size(); index++) {
            PcieLinkReading child = reading(chain.get(index));
            PcieLinkReading parent = reading(chain.get(index - 1));
            PcieLinkReading link = child.min(parent);
            // Negotiated width below what both ends support is a real fault, not power saving
            if (link.currentWidth() > 0 && link.maxWidth() > 0 && link.currentWidth() < link.maxWidth()) {
                downTrained = true;
            }
            bottleneck = bottleneck.isKnown() ? narrower(bottleneck, link) : link;
        }
        return new LinkWalk(bottleneck, downTrained);
    }

    private static PcieLinkReading narrower(PcieLinkReading left, PcieLinkReading right)
    {
        if (!right.isKnown()) {
            return left;
        }
        return lanesTimesRate(right) < lanesTimesRate(left) ? right : left;
    }

    // Relative bandwidth: width times the per-lane rate, which doubles every generation from Gen3 on
    private static double lanesTimesRate(PcieLinkReading link)
    {
        double[] perLane = {0, 2.0, 4.0, 7.877, 15.754, 31.508, 63.015, 126.03};
        int generation = Math.min(link.effectiveGeneration(), perLane.length - 1);
        return link.effectiveWidth() * perLane[generation];
    }

    private PcieLinkReading reading(PciAddress address)
    {
        SysfsPciDevice device = devices.get(address);
        return device == null ? PcieLinkReading.UNKNOWN : device.link();
    }

    private record LinkWalk(PcieLinkReading bottleneck, boolean downTrained)
    {
        LinkWalk and(LinkWalk other)
        {
            PcieLinkReading combined = bottleneck.isKnown() ? narrower(bottleneck, other.bottleneck) : other.bottleneck;
            return new LinkWalk(combined, downTrained || other.downTrained);
        }
    }
}
