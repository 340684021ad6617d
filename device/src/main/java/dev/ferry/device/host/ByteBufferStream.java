package dev.ferry.device.host;

import dev.ferry.device.CopyRoute;
import dev.ferry.device.memory.NativeMemory;
import dev.ferry.device.spi.BackendEvent;
import dev.ferry.device.spi.BackendStream;

import java.nio.ByteBuffer;

import static java.lang.Math.toIntExact;
import static java.util.Objects.requireNonNull;

/**
 * A stream over ByteBuffer-backed memory that runs each copy at submission, which trivially keeps
 * stream order; copies are bulk absolute puts (a memmove in the JDK). Ranges were checked by
 * {@code DeviceStream}, and the JDK checks them again before touching memory.
 */
public final class ByteBufferStream
        implements BackendStream
{
    private final CopyShaper shaper;

    public ByteBufferStream(CopyShaper shaper)
    {
        this.shaper = requireNonNull(shaper, "shaper is null");
    }

    @Override
    public void copy(CopyRoute route, NativeMemory source, long sourceOffset, NativeMemory target, long targetOffset, long length)
    {
        long start = System.nanoTime();
        ByteBuffer from = ByteBufferMemory.of(source).buffer();
        ByteBuffer to = ByteBufferMemory.of(target).buffer();
        to.put(toIntExact(targetOffset), from, toIntExact(sourceOffset), toIntExact(length));
        shaper.pace(route, length, start);
    }

    @Override
    public void copyFromHost(ByteBuffer source, NativeMemory target, long targetOffset)
    {
        long start = System.nanoTime();
        int length = source.remaining();
        ByteBufferMemory.of(target).buffer().put(toIntExact(targetOffset), source, source.position(), length);
        shaper.pace(target.location().isDevice() ? CopyRoute.HOST_TO_DEVICE : CopyRoute.HOST_TO_HOST, length, start);
    }

    @Override
    public void copyToHost(NativeMemory source, long sourceOffset, ByteBuffer target)
    {
        long start = System.nanoTime();
        int length = target.remaining();
        target.put(target.position(), ByteBufferMemory.of(source).buffer(), toIntExact(sourceOffset), length);
        shaper.pace(source.location().isDevice() ? CopyRoute.DEVICE_TO_HOST : CopyRoute.HOST_TO_HOST, length, start);
    }

    @Override
    public BackendEvent record()
    {
        return new InstantEvent();
    }

    @Override
    public void waitFor(BackendEvent event)
    {
        event.synchronize();
    }

    @Override
    public void synchronize() {}

    @Override
    public void close() {}
}
