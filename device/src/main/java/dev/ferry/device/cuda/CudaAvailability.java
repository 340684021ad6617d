package dev.ferry.device.cuda;

import static java.util.Objects.requireNonNull;

/** The cached verdict of the CUDA probe: usable or not, and why. */
public final class CudaAvailability
{
    private final boolean available;
    private final int deviceCount;
    private final String reason;

    private CudaAvailability(boolean available, int deviceCount, String reason)
    {
        this.available = available;
        this.deviceCount = deviceCount;
        this.reason = requireNonNull(reason, "reason is null");
    }

    public static CudaAvailability available(int deviceCount, String description)
    {
        return new CudaAvailability(true, deviceCount, description);
    }

    public static CudaAvailability unavailable(String reason)
    {
        return new CudaAvailability(false, 0, reason);
    }

    public boolean available()
    {
        return available;
    }

    public int deviceCount()
    {
        return deviceCount;
    }

    /** Versions and device count when available; what failed when not. */
    public String reason()
    {
        return reason;
    }

    @Override
    public String toString()
    {
        return (available ? "CUDA available: " : "CUDA unavailable: ") + reason;
    }
}
