package dev.ferry.device.cufile;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.device.spi.IoRegistration;

import java.util.concurrent.atomic.AtomicBoolean;

import static java.util.Objects.requireNonNull;

/**
 * A device buffer registered for direct reads ({@code cuFileBufRegister}), for buffers reused as
 * streaming targets (KvikIO's advice: registration pins BAR1, which can be small). The registration
 * holds its own reference to the buffer, so the memory cannot be freed while registered; closing
 * deregisters and drops that reference. Where registration is not possible the reads still work
 * through cuFile's bounce buffers, and {@link #detail()} says why.
 */
public final class IoBufferRegistration
        implements AutoCloseable
{
    private final DeviceBuffer buffer;
    private final IoRegistration registration;
    private final AtomicBoolean closed = new AtomicBoolean();

    public IoBufferRegistration(DeviceBuffer retainedBuffer, IoRegistration registration)
    {
        this.buffer = requireNonNull(retainedBuffer, "retainedBuffer is null");
        this.registration = requireNonNull(registration, "registration is null");
    }

    public boolean registered()
    {
        return registration.registered();
    }

    public String detail()
    {
        return registration.detail();
    }

    @Override
    public void close()
    {
        if (!closed.compareAndSet(false, true)) {
            throw new FerryException(ErrorCategory.INTERNAL_ERROR, "Double close of the direct-I/O registration of " + buffer.name());
        }
        try {
            registration.deregister();
        }
        finally {
            buffer.close();
        }
    }
}
