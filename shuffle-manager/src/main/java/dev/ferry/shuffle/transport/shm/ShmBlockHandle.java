package dev.ferry.shuffle.transport.shm;

import java.util.Optional;

import dev.ferry.shuffle.transport.wire.ShmLocation;

import static java.util.Objects.requireNonNull;

/**
 * Names a host block published in shared memory: the file's name (never a path: the reader
 * resolves it in its own configured directory), where the block starts and how long it is, and,
 * for a range of the writer's reused staging arena, the name of the lease file the reader must hold
 * while it uses the range (the writer reuses the range only once no reader holds it).
 * On the wire it travels as a {@link ShmLocation}.
 */
public record ShmBlockHandle(String fileName, long offset, long length, Optional<String> leaseName)
{
    public ShmBlockHandle(String fileName, long offset, long length)
    {
        this(fileName, offset, length, Optional.empty());
    }

    public ShmBlockHandle
    {
        requireNonNull(fileName, "fileName is null");
        requireNonNull(leaseName, "leaseName is null");
        ShmNames.checkName(fileName);
        leaseName.ifPresent(ShmNames::checkName);
        if (leaseName.isPresent() && !ShmNames.isLease(leaseName.get())) {
            throw new IllegalArgumentException("Not a lease file name: '" + leaseName.get() + "'");
        }
        if (offset < 0 || length <= 0 || offset > Long.MAX_VALUE - length) {
            throw new IllegalArgumentException("Malformed shared-memory block range [" + offset + ", +" + length + ") of " + fileName);
        }
    }

    /** This handle as the wire carries it, field by field. */
    public ShmLocation toLocation()
    {
        return new ShmLocation(fileName, offset, length, leaseName);
    }

    /** A handle from a peer's location, its names checked here as this reader's directory requires. */
    public static ShmBlockHandle fromLocation(ShmLocation location)
    {
        return new ShmBlockHandle(location.fileName(), location.offset(), location.length(), location.leaseName());
    }
}
