package dev.ferry.shuffle.transport.ipc;

import dev.ferry.device.IpcHandle;

/**
 * The reader's device runtime could not open a peer's exported block ({@code cudaIpcOpenMemHandle}
 * failed: the exporter's pid is not visible from here, separate PID namespaces or pods; on
 * {@code simulated}, the exporter's device memory file is not in this reader's shared directory: no
 * shared {@code /dev/shm}). Nothing was copied; the block itself is fine, so the fetcher makes this a
 * {@link dev.ferry.shuffle.transport.RouteUnavailableException} and the peer falls back to the next route.
 */
public final class IpcImportRefused
        extends RuntimeException
{
    public IpcImportRefused(IpcHandle handle, int device, RuntimeException cause)
    {
        super("cannot open the exporter's IPC handle on device " + device + " (" + handle + "): " + cause.getMessage(), cause);
    }
}
