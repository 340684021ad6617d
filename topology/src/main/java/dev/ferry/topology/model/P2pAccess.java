package dev.ferry.topology.model;

import java.util.OptionalInt;

import static java.util.Objects.requireNonNull;

/**
 * NVML's peer-access status for one capability (read or write) of a GPU pair.
 *
 * @param state OK, not supported or unknown
 * @param nvmlCode the raw {@code nvmlGpuP2PStatus_t}, when NVML answered
 * @param detail e.g. {@code NVML_P2P_STATUS_CHIPSET_NOT_SUPPORTED}
 */
public record P2pAccess(P2pState state, OptionalInt nvmlCode, String detail)
{
    public P2pAccess
    {
        requireNonNull(state, "state is null");
        requireNonNull(nvmlCode, "nvmlCode is null");
        requireNonNull(detail, "detail is null");
    }

    public static P2pAccess ok()
    {
        return new P2pAccess(P2pState.OK, OptionalInt.of(0), "NVML_P2P_STATUS_OK");
    }

    public static P2pAccess notSupported(int nvmlCode, String detail)
    {
        return new P2pAccess(P2pState.NOT_SUPPORTED, OptionalInt.of(nvmlCode), detail);
    }

    public static P2pAccess unknown(String detail)
    {
        return new P2pAccess(P2pState.UNKNOWN, OptionalInt.empty(), detail);
    }
}
