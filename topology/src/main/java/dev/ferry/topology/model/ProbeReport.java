package dev.ferry.topology.model;

import static java.util.Objects.requireNonNull;

/**
 * What one probe did, so a user can see what Ferry could not see.
 *
 * @param probe e.g. {@code nvml}, {@code sysfs}, {@code mounts}
 * @param ran whether it produced facts
 * @param detail e.g. {@code NVML unavailable: libnvidia-ml.so.1 not found} or {@code 2 GPUs, 1 NIC}
 */
public record ProbeReport(String probe, boolean ran, String detail)
{
    public ProbeReport
    {
        requireNonNull(probe, "probe is null");
        requireNonNull(detail, "detail is null");
    }

    public static ProbeReport ran(String probe, String detail)
    {
        return new ProbeReport(probe, true, detail);
    }

    public static ProbeReport skipped(String probe, String detail)
    {
        return new ProbeReport(probe, false, detail);
    }
}
