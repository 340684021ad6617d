package dev.ferry.device.cufile;

/** Which path a file read really took into device memory. */
public enum ReadPath
{
    /** DMA from storage into device memory (cuFile with GDS; O_DIRECT into the simulated arena). */
    TRUE_DIRECT,
    /** cuFile accepted the file but serves it in compatibility mode: POSIX read plus a bounce copy. */
    COMPAT_MODE,
    /** Ferry's own fallback: a read through the page cache and a host-to-device copy. */
    POSIX,
}
