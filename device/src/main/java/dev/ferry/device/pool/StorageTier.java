package dev.ferry.device.pool;

/** Where a stored block currently lives, fastest first. */
public enum StorageTier
{
    DEVICE,
    HOST,
    DISK,
}
