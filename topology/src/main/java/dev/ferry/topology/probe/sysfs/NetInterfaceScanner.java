package dev.ferry.topology.probe.sysfs;

import dev.ferry.topology.model.NetInterface;
import dev.ferry.topology.model.PciAddress;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

import static java.util.Objects.requireNonNull;

/**
 * Lists {@code /sys/class/net}. Only interfaces backed by a device (a {@code device} link) and IPoIB
 * interfaces are kept: loopback, bridges, veth pairs and tunnels carry no traffic of their own, and a
 * container host has hundreds of them.
 */
public final class NetInterfaceScanner
{
    /** ARPHRD_ETHER. */
    public static final int TYPE_ETHERNET = 1;
    /** ARPHRD_INFINIBAND: IP over InfiniBand. */
    public static final int TYPE_INFINIBAND = 32;

    private final SysfsReader sysfs;

    public NetInterfaceScanner(SysfsReader sysfs)
    {
        this.sysfs = requireNonNull(sysfs, "sysfs is null");
    }

    public List<NetInterface> scan()
    {
        Path directory = sysfs.path("class/net");
        List<NetInterface> interfaces = new ArrayList<>();
        for (String name : SysfsReader.list(directory)) {
            Path entry = directory.resolve(name);
            OptionalInt type = SysfsReader.readInt(entry.resolve("type"));
            Optional<Path> device = SysfsReader.realPath(entry.resolve("device"));
            boolean ipoib = type.isPresent() && type.getAsInt() == TYPE_INFINIBAND;
            if (device.isEmpty() && !ipoib) {
                continue;
            }
            Optional<PciAddress> pci = device.flatMap(SysfsPaths::lastFunction);
            // Reading speed of a down link fails with EINVAL; that reads as unknown (-1)
            long speed = SysfsReader.readInt(entry.resolve("speed")).orElse(-1);
            boolean up = SysfsReader.read(entry.resolve("operstate")).map(state -> state.equalsIgnoreCase("up")).orElse(false);
            interfaces.add(new NetInterface(name, kindOf(type), speed, pci, up));
        }
        return List.copyOf(interfaces);
    }

    private static NetInterface.Kind kindOf(OptionalInt type)
    {
        if (type.isEmpty()) {
            return NetInterface.Kind.OTHER;
        }
        switch (type.getAsInt()) {
            case TYPE_ETHERNET:
                return NetInterface.Kind.ETHERNET;
            case TYPE_INFINIBAND:
                return NetInterface.Kind.IPOIB;
            default:
                return NetInterface.Kind.OTHER;
        }
    }
}
