package dev.ferry.device.cufile;

import static java.util.Objects.requireNonNull;

/**
 * {@code length} bytes at {@code fileOffset} of a file, read into {@code target} at
 * {@code targetOffset}. The one shape of a batch-read range: a caller's {@link FileReadRequest}
 * names a {@code DeviceBuffer}, the engine's {@code EngineRead} the raw memory behind it.
 *
 * @param <T> what the bytes are read into
 */
public abstract class FileRange<T>
{
    private final long fileOffset;
    private final long length;
    private final T target;
    private final long targetOffset;

    protected FileRange(long fileOffset, long length, T target, long targetOffset)
    {
        this.fileOffset = fileOffset;
        this.length = length;
        this.target = requireNonNull(target, "target is null");
        this.targetOffset = targetOffset;
    }

    public final long fileOffset()
    {
        return fileOffset;
    }

    public final long length()
    {
        return length;
    }

    public final T target()
    {
        return target;
    }

    public final long targetOffset()
    {
        return targetOffset;
    }
}
