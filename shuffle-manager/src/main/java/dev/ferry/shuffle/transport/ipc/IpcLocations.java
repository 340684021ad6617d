package dev.ferry.shuffle.transport.ipc;

import dev.ferry.device.IpcHandle;
import dev.ferry.shuffle.transport.wire.IpcLocation;

/** The device module's {@link IpcHandle} and the wire's {@link IpcLocation}, field for field. */
public final class IpcLocations
{
    private IpcLocations() {}

    public static IpcLocation toLocation(IpcHandle handle)
    {
        return new IpcLocation(handle.backend(), handle.exporterPid(), handle.device(), handle.offset(), handle.length(), handle.leasePath(), handle.payload());
    }

    /** A handle from a peer's location; the device module checks it again where it opens it. */
    public static IpcHandle toHandle(IpcLocation location)
    {
        return new IpcHandle(location.backend(), location.exporterPid(), location.device(), location.offset(), location.length(), location.leasePath(),
                location.payload());
    }
}
