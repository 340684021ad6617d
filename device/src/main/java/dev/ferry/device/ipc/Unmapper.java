package dev.ferry.device.ipc;

import java.lang.reflect.Field;
import java.nio.MappedByteBuffer;

/**
 * Unmaps a file mapping now rather than whenever the garbage collector finds its buffer: the pages of
 * a deleted shared-memory file stay allocated as long as any mapping of it exists.
 */
public final class Unmapper
{
    private static final sun.misc.Unsafe UNSAFE = unsafe();

    private Unmapper() {}

    /** The buffer (and every view of it) must not be used afterwards: an access would touch unmapped memory. */
    public static void unmap(MappedByteBuffer mapping)
    {
        UNSAFE.invokeCleaner(mapping);
    }

    private static sun.misc.Unsafe unsafe()
    {
        try {
            // jdk.unsupported opens sun.misc, so no --add-opens is needed for this.
            Field field = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
            field.setAccessible(true);
            return (sun.misc.Unsafe) field.get(null);
        }
        catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
