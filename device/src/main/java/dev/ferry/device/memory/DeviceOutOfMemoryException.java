package dev.ferry.device.memory;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;

/**
 * An allocation did not fit under an allocator's limit or in the device's free memory. Unchecked,
 * like Arrow's OutOfMemoryException, and unrelated to the JVM's OutOfMemoryError; the message
 * lists every allocator on the chain with its limit and usage.
 */
public class DeviceOutOfMemoryException
        extends FerryException
{
    private final long requestedBytes;

    public DeviceOutOfMemoryException(String message, long requestedBytes)
    {
        super(ErrorCategory.INSUFFICIENT_RESOURCES, message);
        this.requestedBytes = requestedBytes;
    }

    public long requestedBytes()
    {
        return requestedBytes;
    }
}
