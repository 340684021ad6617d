package dev.ferry.device.cufile;

import dev.ferry.device.memory.DeviceBuffer;

import static java.util.Objects.requireNonNull;

/** One range of a batch read: {@code length} bytes at {@code fileOffset} into {@code target} at {@code targetOffset}. */
public final class FileReadRequest
{
    private final long fileOffset;
    private final long length;
    private final DeviceBuffer target;
    private final long targetOffset;

    public FileReadRequest(long fileOffset, long length, DeviceBuffer target, long targetOffset)
    {
        this.fileOffset = fileOffset;
        this.length = length;
        this.target = requireNonNull(target, "target is null");
        this.targetOffset = targetOffset;
    }

    public long fileOffset()
    {
        return fileOffset;
    }

    public long length()
    {
        return length;
    }

    public DeviceBuffer target()
    {
        return target;
    }

    public long targetOffset()
    {
        return targetOffset;
    }
}
