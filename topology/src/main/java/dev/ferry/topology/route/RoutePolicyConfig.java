package dev.ferry.topology.route;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.conf.ConfigSource;
import dev.ferry.conf.MapConfigSource;
import dev.ferry.topology.TopologyConfigKeys;
import dev.ferry.topology.model.PathClass;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;

import static java.util.Objects.requireNonNull;

/**
 * The thresholds and constants of {@link RoutePolicy}, read once from a {@link ConfigSource} through
 * {@link TopologyConfigKeys}. Each value remembers whether it was set, for the decision's {@code threshold}.
 */
public record RoutePolicyConfig(
        Setting<PathClass> p2pLevel,
        Setting<PathClass> gdrLevel,
        Setting<PathClass> gdsLevel,
        Setting<String> gdsFilesystems,
        Setting<Double> nvlinkSm60,
        Setting<Double> nvlinkSm70,
        Setting<Double> nvlinkSm80,
        Setting<Double> nvlinkSm86,
        Setting<Double> nvlinkSm90,
        Setting<Double> nvlinkSm100,
        Setting<Double> nvlinkUnknown,
        Setting<Double> pcieUnknown,
        Setting<String> interSocket,
        Setting<Double> interSocketUnknown,
        Setting<Double> nicUnknown,
        Setting<Double> tcpUnknown)
{
    public RoutePolicyConfig
    {
        requireNonNull(p2pLevel, "p2pLevel is null");
        requireNonNull(gdrLevel, "gdrLevel is null");
        requireNonNull(gdsLevel, "gdsLevel is null");
        requireNonNull(gdsFilesystems, "gdsFilesystems is null");
        requireNonNull(nvlinkSm60, "nvlinkSm60 is null");
        requireNonNull(nvlinkSm70, "nvlinkSm70 is null");
        requireNonNull(nvlinkSm80, "nvlinkSm80 is null");
        requireNonNull(nvlinkSm86, "nvlinkSm86 is null");
        requireNonNull(nvlinkSm90, "nvlinkSm90 is null");
        requireNonNull(nvlinkSm100, "nvlinkSm100 is null");
        requireNonNull(nvlinkUnknown, "nvlinkUnknown is null");
        requireNonNull(pcieUnknown, "pcieUnknown is null");
        requireNonNull(interSocket, "interSocket is null");
        requireNonNull(interSocketUnknown, "interSocketUnknown is null");
        requireNonNull(nicUnknown, "nicUnknown is null");
        requireNonNull(tcpUnknown, "tcpUnknown is null");
        for (Setting<Double> setting : List.of(nvlinkSm60, nvlinkSm70, nvlinkSm80, nvlinkSm86, nvlinkSm90, nvlinkSm100,
                nvlinkUnknown, pcieUnknown, interSocketUnknown, nicUnknown, tcpUnknown)) {
            if (!(setting.value() > 0)) {
                throw new FerryException(ErrorCategory.USER_ERROR, setting.key().name() + " must be a positive number of GB/s, got " + setting.value());
            }
        }
        fixedInterSocket(interSocket);
    }

    public static RoutePolicyConfig defaults()
    {
        return from(MapConfigSource.empty());
    }

    public static RoutePolicyConfig from(ConfigSource source)
    {
        return new RoutePolicyConfig(
                Setting.read(TopologyConfigKeys.P2P_LEVEL, source),
                Setting.read(TopologyConfigKeys.GDR_LEVEL, source),
                Setting.read(TopologyConfigKeys.GDS_LEVEL, source),
                Setting.read(TopologyConfigKeys.GDS_FILESYSTEMS, source),
                Setting.read(TopologyConfigKeys.NVLINK_SM60_GBPS, source),
                Setting.read(TopologyConfigKeys.NVLINK_SM70_GBPS, source),
                Setting.read(TopologyConfigKeys.NVLINK_SM80_GBPS, source),
                Setting.read(TopologyConfigKeys.NVLINK_SM86_GBPS, source),
                Setting.read(TopologyConfigKeys.NVLINK_SM90_GBPS, source),
                Setting.read(TopologyConfigKeys.NVLINK_SM100_GBPS, source),
                Setting.read(TopologyConfigKeys.NVLINK_UNKNOWN_GBPS, source),
                Setting.read(TopologyConfigKeys.PCIE_UNKNOWN_GBPS, source),
                Setting.read(TopologyConfigKeys.INTER_SOCKET_GBPS, source),
                Setting.read(TopologyConfigKeys.INTER_SOCKET_UNKNOWN_GBPS, source),
                Setting.read(TopologyConfigKeys.NIC_UNKNOWN_GBPS, source),
                Setting.read(TopologyConfigKeys.TCP_UNKNOWN_GBPS, source));
    }

    /** Filesystem types cuFile can read directly, lower-case, in the order given, without repeats. */
    public List<String> gdsFilesystemTypes()
    {
        return Arrays.stream(gdsFilesystems.value().split(","))
                .map(type -> type.trim().toLowerCase(Locale.ROOT))
                .filter(type -> !type.isEmpty())
                .distinct()
                .toList();
    }

    /** The inter-socket bandwidth the user fixed, or empty for {@code auto}. */
    public OptionalDouble fixedInterSocketGbps()
    {
        return fixedInterSocket(interSocket);
    }

    private static OptionalDouble fixedInterSocket(Setting<String> setting)
    {
        String text = setting.value().trim();
        if (text.equalsIgnoreCase("auto")) {
            return OptionalDouble.empty();
        }
        try {
            double value = Double.parseDouble(text);
            if (value > 0) {
                return OptionalDouble.of(value);
            }
        }
        catch (NumberFormatException ignored) {
            // reported below with the key name
        }
        throw new FerryException(ErrorCategory.USER_ERROR, setting.key().name() + " must be 'auto' or a positive number of GB/s, got '" + text + "'");
    }
}
