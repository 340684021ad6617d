package dev.ferry.device.cufile;

import java.io.FileDescriptor;
import java.lang.reflect.Field;
import java.nio.channels.FileChannel;

/**
 * The raw {@code int} descriptor behind a {@link FileChannel}, which cuFile's
 * {@code cuFileHandleRegister} needs and NIO does not expose.
 *
 * <p>Why this way: {@code ExtendedOpenOption.DIRECT} is the only pure-Java way to get O_DIRECT,
 * and the descriptor it opens is private to {@code sun.nio.ch.FileChannelImpl}. JavaCPP's libc
 * bindings are not available (no "systems" preset on the class path) and a native helper would need
 * a compiler at build time. So Ferry opens the file with NIO and reads the two private fields by
 * reflection, which needs {@code --add-opens java.base/sun.nio.ch=ALL-UNNAMED} and
 * {@code --add-opens java.base/java.io=ALL-UNNAMED} (Spark's own launch flags include both). When
 * they are missing, the caller records the reason and falls back to POSIX reads.
 */
public final class RawFileDescriptors
{
    private RawFileDescriptors() {}

    /** The descriptor number; throws {@link IllegalStateException} saying which flag is missing. */
    public static int of(FileChannel channel)
    {
        try {
            Field channelFd = findField(channel.getClass(), "fd");
            channelFd.setAccessible(true);
            FileDescriptor descriptor = (FileDescriptor) channelFd.get(channel);
            Field number = FileDescriptor.class.getDeclaredField("fd");
            number.setAccessible(true);
            int fd = number.getInt(descriptor);
            if (fd < 0) {
                throw new IllegalStateException("the channel's descriptor is closed");
            }
            return fd;
        }
        catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("cannot read the raw file descriptor of " + channel.getClass().getName()
                    + " (" + e + "); run the JVM with --add-opens java.base/sun.nio.ch=ALL-UNNAMED --add-opens java.base/java.io=ALL-UNNAMED", e);
        }
    }

    private static Field findField(Class<?> type, String name)
            throws NoSuchFieldException
    {
        for (Class<?> current = type; current != null; current = current.getSuperclass()) {
            try {
                return current.getDeclaredField(name);
            }
            catch (NoSuchFieldException ignored) {
                // look in the superclass
            }
        }
        throw new NoSuchFieldException(type.getName() + "." + name);
    }
}
