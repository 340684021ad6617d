package dev.ferry.device.cufile;

import dev.ferry.device.memory.DeviceBuffer;

/** One range of a batch read: {@code length} bytes at {@code fileOffset} into {@code target} at {@code targetOffset}. */
public final class FileReadRequest
        extends FileRange<DeviceBuffer>
{
    public FileReadRequest(long fileOffset, long length, DeviceBuffer target, long targetOffset)
    {
        super(fileOffset, length, target, targetOffset);
    }
}
