package dev.ferry.device.kernel;

import static java.util.Objects.requireNonNull;

/** The cached verdict of the kernel probe (NVRTC plus the CUDA driver API): usable or not, and why. */
public final class KernelAvailability
{
    private final boolean available;
    private final String reason;

    private KernelAvailability(boolean available, String reason)
    {
        this.available = available;
        this.reason = requireNonNull(reason, "reason is null");
    }

    public static KernelAvailability available(String description)
    {
        return new KernelAvailability(true, description);
    }

    public static KernelAvailability unavailable(String reason)
    {
        return new KernelAvailability(false, reason);
    }

    public boolean available()
    {
        return available;
    }

    /** NVRTC version and device architecture when available; what failed when not. */
    public String reason()
    {
        return reason;
    }

    @Override
    public String toString()
    {
        return (available ? "kernels available: " : "kernels unavailable: ") + reason;
    }
}
