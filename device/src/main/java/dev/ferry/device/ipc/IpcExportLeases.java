package dev.ferry.device.ipc;

import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The export leases of one allocation, one per {@code exportIpc}: the memory may be freed (or its
 * range reused) only once every lease has ended. Thread-safe.
 */
public final class IpcExportLeases
{
    private final List<IpcExportLease> leases = new ArrayList<>();

    public synchronized void add(IpcExportLease lease)
    {
        leases.add(requireNonNull(lease, "lease is null"));
    }

    /** Ends every lease no importer holds; true when none is left and the memory may be freed. */
    public synchronized boolean tryReleaseAll()
    {
        leases.removeIf(IpcExportLease::tryRelease);
        return leases.isEmpty();
    }
}
