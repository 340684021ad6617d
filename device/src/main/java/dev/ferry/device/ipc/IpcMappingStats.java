package dev.ferry.device.ipc;

/**
 * How a backend's IPC imports used their arena mappings ({@link PeerArenaImports}): each arena of
 * each exporter is opened once per importing device and then reused by every later block.
 *
 * @param opened mappings opened so far
 * @param reused imports served by a mapping already open
 * @param open mappings open now
 */
public record IpcMappingStats(long opened, long reused, int open)
{
    public static final IpcMappingStats NONE = new IpcMappingStats(0, 0, 0);
}
