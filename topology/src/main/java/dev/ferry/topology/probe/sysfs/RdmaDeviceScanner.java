package dev.ferry.topology.probe.sysfs;

import dev.ferry.topology.model.LinkLayer;
import dev.ferry.topology.model.NicPort;
import dev.ferry.topology.model.PciAddress;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * Lists {@code /sys/class/infiniband}: one entry per RDMA device (HCA), whatever its transport.
 * <p>
 * Link layer rule. The kernel's {@code ports/<n>/link_layer} says {@code InfiniBand} or
 * {@code Ethernet}; iWARP devices also say {@code Ethernet}, because iWARP runs over TCP on Ethernet.
 * What tells them apart is {@code node_type}: {@code 1: CA} for InfiniBand and RoCE HCAs,
 * {@code 4: RNIC} for iWARP ({@code RDMA_NODE_RNIC}; cxgb4, siw, and irdma when set to iWARP).
 * So: {@code node_type} RNIC means iWARP; otherwise {@code InfiniBand} means InfiniBand and
 * {@code Ethernet} means RoCE (mlx5, bnxt_re, irdma in RoCEv2 mode, rxe). Without a readable
 * {@code node_type}, names that only iWARP drivers use ({@code iw_cxgb4}, {@code siw*}) decide;
 * {@code irdma} does both protocols, so its name alone decides nothing.
 */
public final class RdmaDeviceScanner
{
    private static final Pattern RATE = Pattern.compile("([0-9]+(?:\\.[0-9]+)?)\\s*Gb/sec.*");

    private final SysfsReader sysfs;

    public RdmaDeviceScanner(SysfsReader sysfs)
    {
        this.sysfs = requireNonNull(sysfs, "sysfs is null");
    }

    /** Whether {@code /sys/class/infiniband} exists at all (it does once {@code ib_core} is loaded). */
    public boolean classPresent()
    {
        return SysfsReader.exists(sysfs.path("class/infiniband"));
    }

    public List<SysfsRdmaDevice> scan()
    {
        Path directory = sysfs.path("class/infiniband");
        List<SysfsRdmaDevice> devices = new ArrayList<>();
        for (String name : SysfsReader.list(directory)) {
            devices.add(read(name, directory.resolve(name)));
        }
        return List.copyOf(devices);
    }

    private static SysfsRdmaDevice read(String name, Path directory)
    {
        Optional<PciAddress> pci = SysfsReader.realPath(directory.resolve("device")).flatMap(SysfsPaths::lastFunction);
        String nodeType = SysfsReader.read(directory.resolve("node_type")).orElse("");
        List<SysfsRdmaPort> ports = new ArrayList<>();
        Path portsDirectory = directory.resolve("ports");
        for (String port : SysfsReader.list(portsDirectory)) {
            int number;
            try {
                number = Integer.parseInt(port);
            }
            catch (NumberFormatException e) {
                continue;
            }
            Path portDirectory = portsDirectory.resolve(port);
            String linkLayer = SysfsReader.read(portDirectory.resolve("link_layer")).orElse("");
            String state = SysfsReader.read(portDirectory.resolve("state")).orElse("unknown");
            String physicalState = SysfsReader.read(portDirectory.resolve("phys_state")).orElse("unknown");
            double rate = SysfsReader.read(portDirectory.resolve("rate")).map(RdmaDeviceScanner::parseRate).orElse(0.0);
            NicPort nicPort = new NicPort(number, state, isActive(state), rate);
            ports.add(new SysfsRdmaPort(nicPort, linkLayerOf(name, nodeType, linkLayer), linkLayer, physicalState));
        }
        List<String> netdevs = SysfsReader.list(directory.resolve("device/net"));
        return new SysfsRdmaDevice(name, pci, nodeType, ports, netdevs);
    }

    /** The port's transport by the rule in the class comment. */
    public static LinkLayer linkLayerOf(String deviceName, String nodeType, String linkLayer)
    {
        String type = nodeType.trim();
        if (type.startsWith("4:") || type.toUpperCase(Locale.ROOT).endsWith("RNIC")) {
            return LinkLayer.IWARP;
        }
        if (type.isEmpty() && (deviceName.startsWith("iw_") || deviceName.startsWith("siw"))) {
            return LinkLayer.IWARP;
        }
        switch (linkLayer.trim().toLowerCase(Locale.ROOT)) {
            case "infiniband":
                return LinkLayer.INFINIBAND;
            case "ethernet":
                return LinkLayer.ROCE;
            default:
                return LinkLayer.UNKNOWN;
        }
    }

    /** {@code "100 Gb/sec (4X EDR)"} gives 100; anything unparseable 0. */
    public static double parseRate(String rate)
    {
        Matcher matcher = RATE.matcher(rate.trim());
        return matcher.matches() ? Double.parseDouble(matcher.group(1)) : 0;
    }

    /** {@code "4: ACTIVE"} is active; DOWN, INIT, ARMED and ACTIVE_DEFER are not (yet) carrying traffic. */
    public static boolean isActive(String state)
    {
        String name = state.contains(":") ? state.substring(state.indexOf(':') + 1).trim() : state.trim();
        return name.equalsIgnoreCase("ACTIVE");
    }
}
