package dev.ferry.device;

import dev.ferry.device.memory.MemoryLocation;

/**
 * The link class a copy uses; bandwidth shaping and metrics are kept per route. The routes that
 * cross a PCIe link between a GPU and host memory are {@link #HOST_TO_DEVICE},
 * {@link #DEVICE_TO_HOST} and {@link #PEER_DEVICE_TO_HOST}.
 */
public enum CopyRoute
{
    HOST_TO_DEVICE,
    /** This process's own device memory into host memory: its GPU's D->H over that GPU's PCIe link. */
    DEVICE_TO_HOST,
    DEVICE_TO_DEVICE,
    /** Between two GPUs directly (NVLink or PCIe peer-to-peer); no host memory is crossed. */
    PEER,
    /**
     * Another process's device memory, imported over IPC, into host memory here: the exporter
     * GPU's D->H, over the exporter GPU's own PCIe link (not a peer copy, not this GPU's link).
     */
    PEER_DEVICE_TO_HOST,
    HOST_TO_HOST;

    /** Whether this copy crosses a PCIe link between a GPU and host memory. */
    public boolean crossesHostLink()
    {
        return this == HOST_TO_DEVICE || this == DEVICE_TO_HOST || this == PEER_DEVICE_TO_HOST;
    }

    public static CopyRoute between(MemoryLocation source, MemoryLocation target)
    {
        if (source.isDevice() && target.isDevice()) {
            return source.device() == target.device() ? DEVICE_TO_DEVICE : PEER;
        }
        if (source.isDevice()) {
            return DEVICE_TO_HOST;
        }
        return target.isDevice() ? HOST_TO_DEVICE : HOST_TO_HOST;
    }
}
