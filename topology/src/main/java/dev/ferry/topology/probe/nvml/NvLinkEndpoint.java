package dev.ferry.topology.probe.nvml;

/** What sits at the far end of an NVLink ({@code nvmlIntNvLinkDeviceType_t}). */
public enum NvLinkEndpoint
{
    GPU,
    NVSWITCH,
    /** An IBM POWER9 NVLink-attached CPU. */
    IBM_NPU;

    /**
     * The endpoint for NVML's answer. {@code UNKNOWN} (or a failed call) is resolved by the caller:
     * NCCL treats a remote that is no known GPU as an NVSwitch, which is what VMs that hide the
     * switches look like.
     */
    static NvLinkEndpoint ofNvml(int type, boolean remoteIsKnownGpu)
    {
        switch (type) {
            case NvmlConstants.NVML_NVLINK_DEVICE_TYPE_GPU:
                return GPU;
            case NvmlConstants.NVML_NVLINK_DEVICE_TYPE_SWITCH:
                return NVSWITCH;
            case NvmlConstants.NVML_NVLINK_DEVICE_TYPE_IBMNPU:
                return IBM_NPU;
            default:
                return remoteIsKnownGpu ? GPU : NVSWITCH;
        }
    }
}
