package dev.ferry.gds.device;

/**
 * Byte offsets and constants of the Arrow C Device Data Interface structs on a 64-bit platform:
 * <pre>
 * struct ArrowArray { int64_t length, null_count, offset, n_buffers, n_children;
 *                     const void** buffers; struct ArrowArray** children; struct ArrowArray* dictionary;
 *                     void (*release)(struct ArrowArray*); void* private_data; };              // 80 bytes
 * struct ArrowDeviceArray { struct ArrowArray array; int64_t device_id; int32_t device_type;
 *                           void* sync_event; int64_t reserved[3]; };                             // 128 bytes
 * </pre>
 * Written here from the published specification, so a native consumer handed the address reads the
 * same fields at the same offsets.
 */
public final class ArrowDeviceArrayLayout
{
    public static final int ARROW_DEVICE_CPU = 1;
    public static final int ARROW_DEVICE_CUDA = 2;
    public static final int ARROW_DEVICE_CUDA_HOST = 3;

    public static final int ARRAY_LENGTH = 0;
    public static final int ARRAY_NULL_COUNT = 8;
    public static final int ARRAY_OFFSET = 16;
    public static final int ARRAY_N_BUFFERS = 24;
    public static final int ARRAY_N_CHILDREN = 32;
    public static final int ARRAY_BUFFERS = 40;
    public static final int ARRAY_CHILDREN = 48;
    public static final int ARRAY_DICTIONARY = 56;
    public static final int ARRAY_RELEASE = 64;
    public static final int ARRAY_PRIVATE_DATA = 72;
    public static final int ARRAY_SIZE = 80;

    public static final int DEVICE_ID = 80;
    public static final int DEVICE_TYPE = 88;
    /** After 4 bytes of padding: the pointer is 8-byte aligned. */
    public static final int SYNC_EVENT = 96;
    public static final int RESERVED = 104;
    public static final int DEVICE_ARRAY_SIZE = 128;

    private ArrowDeviceArrayLayout() {}

    public static String deviceTypeName(int deviceType)
    {
        return switch (deviceType) {
            case ARROW_DEVICE_CPU -> "ARROW_DEVICE_CPU";
            case ARROW_DEVICE_CUDA -> "ARROW_DEVICE_CUDA";
            case ARROW_DEVICE_CUDA_HOST -> "ARROW_DEVICE_CUDA_HOST";
            default -> "device type " + deviceType;
        };
    }
}
