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

    /**
     * A few words for the start-up line and explain strings ({@code no GPU}, {@code no CUDA libraries});
     * the whole {@link #reason()} goes to the log at DEBUG.
     */
    public String shortReason()
    {
        if (available) {
            return deviceCount + (deviceCount == 1 ? " GPU" : " GPUs");
        }
        if (reason.contains("no CUDA device")) {
            return "no GPU";
        }
        if (reason.startsWith("UnsatisfiedLinkError") || reason.startsWith("NoClassDefFoundError") || reason.contains("cannot open shared object")) {
            return "no CUDA libraries";
        }
        return reason.length() <= 60 ? reason : reason.substring(0, 57) + "...";
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
