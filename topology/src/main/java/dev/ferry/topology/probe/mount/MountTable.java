package dev.ferry.topology.probe.mount;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/** A parsed mount table, answering which mount holds a path. */
public final class MountTable
{
    private final List<MountEntry> entries;

    public MountTable(List<MountEntry> entries)
    {
        this.entries = List.copyOf(requireNonNull(entries, "entries is null"));
    }

    public List<MountEntry> entries()
    {
        return entries;
    }

    /**
     * The mount whose mount point is the longest prefix of {@code path}, compared by path components
     * ({@code /data} holds {@code /data/x} but not {@code /database}). Of several mounts on one mount
     * point the last listed is on top, so it wins.
     *
     * @param path an absolute, normalised path
     */
    public Optional<MountEntry> find(Path path)
    {
        requireNonNull(path, "path is null");
        if (!path.isAbsolute()) {
            throw new IllegalArgumentException("Mount lookup needs an absolute path: " + path);
        }
        MountEntry best = null;
        int bestDepth = -1;
        for (MountEntry entry : entries) {
            Path mountPoint = Path.of(entry.mountPoint());
            if (path.startsWith(mountPoint) && mountPoint.getNameCount() >= bestDepth) {
                best = entry;
                bestDepth = mountPoint.getNameCount();
            }
        }
        return Optional.ofNullable(best);
    }
}
