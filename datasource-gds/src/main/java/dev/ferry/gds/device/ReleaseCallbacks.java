package dev.ferry.gds.device;

import org.apache.arrow.c.jni.JniWrapper;
import org.apache.arrow.memory.util.MemoryUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static dev.ferry.gds.device.ArrowDeviceArrayLayout.ARRAY_RELEASE;

/**
 * The C Data Interface's {@code release} callback for structs Ferry fills itself. A consumer of an
 * {@code ArrowArray} frees it by calling {@code array->release(array)}, a C function pointer; Java
 * cannot make one without a native library, so this borrows the one in Arrow Java's C Data JNI
 * library ({@code arrow-c-data}, shipped in the plugin jar): {@code JniWrapper.exportArray} sets
 * {@code release} to a native function that, when called from any thread, releases the children,
 * calls the given Java {@code onRelease} and sets {@code release} to NULL, as the specification
 * requires.
 * <p>The library is loaded on first use. Where it cannot be (a platform it has no binary for), every
 * export is refused with {@link #unavailableReason()}: an array with a NULL {@code release} means
 * "already released" to every consumer, so handing one out would be wrong, not degraded.
 */
public final class ReleaseCallbacks
{
    private static final Logger log = LoggerFactory.getLogger(ReleaseCallbacks.class);

    private ReleaseCallbacks() {}

    /** Null when release callbacks can be installed, else why not. */
    public static String unavailableReason()
    {
        return Holder.UNAVAILABLE_REASON;
    }

    /** Gives the {@code struct ArrowArray} at {@code array} a release callback that runs {@code onRelease} once. */
    public static void install(long array, Runnable onRelease)
    {
        String reason = unavailableReason();
        if (reason != null) {
            throw new UnsupportedOperationException("Cannot export an Arrow C Device Data Interface array: " + reason);
        }
        if (isReleased(array)) {
            // exportArray stores a JNI global reference; the close() below drops it exactly once.
            JniWrapper.get().exportArray(array, onRelease::run);
        }
        else {
            throw new IllegalStateException("The ArrowArray at 0x" + Long.toHexString(array) + " already has a release callback");
        }
    }

    /** Whether the struct's {@code release} is NULL, which the specification defines as released. */
    public static boolean isReleased(long array)
    {
        return MemoryUtil.getLong(array + ARRAY_RELEASE) == 0;
    }

    /** What a consumer does when it is done: calls the struct's own {@code release} callback, if it still has one. */
    public static void release(long array)
    {
        if (!isReleased(array)) {
            JniWrapper.get().releaseArray(array);
        }
    }

    private static final class Holder
    {
        static final String UNAVAILABLE_REASON = load();

        private static String load()
        {
            try {
                JniWrapper.get();
                return null;
            }
            catch (RuntimeException | LinkageError e) {
                // Nothing here may touch JniWrapper again: its class may be the thing that is missing.
                String reason = "Arrow's C Data JNI library (arrow_cdata_jni from org.apache.arrow:arrow-c-data, shipped in Ferry's plugin jar) could not be loaded on "
                        + System.getProperty("os.name") + "/" + System.getProperty("os.arch") + ": " + e;
                log.warn("gds device batches cannot be exported: {}", reason);
                return reason;
            }
        }
    }
}
