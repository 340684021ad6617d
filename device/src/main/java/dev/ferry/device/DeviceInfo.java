package dev.ferry.device;

import static java.util.Objects.requireNonNull;

/** One device a backend offers: its ordinal, a name, its memory and where it sits on the bus. */
public final class DeviceInfo
{
    private final int ordinal;
    private final String name;
    private final long totalMemory;
    private final String busId;

    public DeviceInfo(int ordinal, String name, long totalMemory, String busId)
    {
        if (ordinal < 0) {
            throw new IllegalArgumentException("ordinal must not be negative: " + ordinal);
        }
        this.ordinal = ordinal;
        this.name = requireNonNull(name, "name is null");
        this.totalMemory = totalMemory;
        this.busId = requireNonNull(busId, "busId is null");
    }

    public int ordinal()
    {
        return ordinal;
    }

    public String name()
    {
        return name;
    }

    public long totalMemory()
    {
        return totalMemory;
    }

    /** The PCI bus id ("0000:3b:00.0"), or a descriptive placeholder for simulated devices. */
    public String busId()
    {
        return busId;
    }

    @Override
    public String toString()
    {
        return "device " + ordinal + " (" + name + ", " + totalMemory + " bytes, " + busId + ")";
    }
}
