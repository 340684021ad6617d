package dev.ferry.topology.probe.nvml;

import java.util.Map;
import java.util.Optional;

/**
 * NVML enum values the probe interprets, copied so that reading them never loads the JavaCPP
 * bindings (checked against {@code org.bytedeco.cuda.global.nvml} 13.1-9.19-1.5.13 by a test).
 */
public final class NvmlConstants
{
    public static final int NVML_SUCCESS = 0;
    public static final int NVML_ERROR_NOT_SUPPORTED = 3;

    public static final int NVML_P2P_CAPS_INDEX_READ = 0;
    public static final int NVML_P2P_CAPS_INDEX_WRITE = 1;

    public static final int NVML_P2P_STATUS_OK = 0;
    public static final int NVML_P2P_STATUS_CHIPSET_NOT_SUPPORTED = 1;
    public static final int NVML_P2P_STATUS_GPU_NOT_SUPPORTED = 2;
    public static final int NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED = 3;
    public static final int NVML_P2P_STATUS_DISABLED_BY_REGKEY = 4;
    public static final int NVML_P2P_STATUS_NOT_SUPPORTED = 5;
    public static final int NVML_P2P_STATUS_UNKNOWN = 6;

    public static final int NVML_NVLINK_DEVICE_TYPE_GPU = 0;
    public static final int NVML_NVLINK_DEVICE_TYPE_IBMNPU = 1;
    public static final int NVML_NVLINK_DEVICE_TYPE_SWITCH = 2;
    public static final int NVML_NVLINK_DEVICE_TYPE_UNKNOWN = 0xff;

    public static final int NVML_NVLINK_VERSION_INVALID = 0;
    public static final int NVML_NVLINK_VERSION_1_0 = 1;
    public static final int NVML_NVLINK_VERSION_2_0 = 2;
    public static final int NVML_NVLINK_VERSION_2_2 = 3;
    public static final int NVML_NVLINK_VERSION_3_0 = 4;
    public static final int NVML_NVLINK_VERSION_3_1 = 5;
    public static final int NVML_NVLINK_VERSION_4_0 = 6;
    public static final int NVML_NVLINK_VERSION_5_0 = 7;

    private static final Map<Integer, String> NVLINK_VERSION_NAMES = Map.of(
            NVML_NVLINK_VERSION_1_0, "1.0",
            NVML_NVLINK_VERSION_2_0, "2.0",
            NVML_NVLINK_VERSION_2_2, "2.2",
            NVML_NVLINK_VERSION_3_0, "3.0",
            NVML_NVLINK_VERSION_3_1, "3.1",
            NVML_NVLINK_VERSION_4_0, "4.0",
            NVML_NVLINK_VERSION_5_0, "5.0");

    private NvmlConstants() {}

    /** The NVLink version an {@code nvmlNvlinkVersion_t} names ({@code 4.0}), empty for INVALID or a value this build does not know. */
    public static Optional<String> nvLinkVersionName(int version)
    {
        return Optional.ofNullable(NVLINK_VERSION_NAMES.get(version));
    }

    /** The {@code nvmlGpuP2PStatus_t} constant's name, for reasons users read. */
    public static String p2pStatusName(int status)
    {
        switch (status) {
            case NVML_P2P_STATUS_OK:
                return "NVML_P2P_STATUS_OK";
            case NVML_P2P_STATUS_CHIPSET_NOT_SUPPORTED:
                return "NVML_P2P_STATUS_CHIPSET_NOT_SUPPORTED";
            case NVML_P2P_STATUS_GPU_NOT_SUPPORTED:
                return "NVML_P2P_STATUS_GPU_NOT_SUPPORTED";
            case NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED:
                return "NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED";
            case NVML_P2P_STATUS_DISABLED_BY_REGKEY:
                return "NVML_P2P_STATUS_DISABLED_BY_REGKEY";
            case NVML_P2P_STATUS_NOT_SUPPORTED:
                return "NVML_P2P_STATUS_NOT_SUPPORTED";
            case NVML_P2P_STATUS_UNKNOWN:
                return "NVML_P2P_STATUS_UNKNOWN";
            default:
                return "nvmlGpuP2PStatus " + status;
        }
    }
}
