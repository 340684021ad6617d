package dev.ferry.device;

import dev.ferry.device.memory.MemoryLocation;

/** The link class a copy uses; bandwidth shaping and metrics are kept per route. */
public enum CopyRoute
{
    HOST_TO_DEVICE,
    DEVICE_TO_HOST,
    DEVICE_TO_DEVICE,
    PEER,
    HOST_TO_HOST;

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
