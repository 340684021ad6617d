package dev.ferry.topology.model;

/** NVML's answer for one direction of peer access, reduced to what route decisions need. */
public enum P2pState
{
    /** {@code NVML_P2P_STATUS_OK}. */
    OK,
    /** Any refusal: chipset, GPU, IOH topology, regkey or plain not supported (the code says which). */
    NOT_SUPPORTED,
    /** Not asked (no NVML, e.g. offline from a capture) or {@code NVML_P2P_STATUS_UNKNOWN}. */
    UNKNOWN,
}
