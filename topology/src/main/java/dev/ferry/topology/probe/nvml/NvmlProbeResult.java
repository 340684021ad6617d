package dev.ferry.topology.probe.nvml;

import dev.ferry.topology.model.ProbeReport;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The NVML probe's outcome: a snapshot when NVML answered, and always a report.
 *
 * @param snapshot what NVML said, when it could be asked
 * @param report {@code ran} with a summary, or skipped with {@code NVML unavailable: <reason>}
 */
public record NvmlProbeResult(Optional<NvmlSnapshot> snapshot, ProbeReport report)
{
    public NvmlProbeResult
    {
        requireNonNull(snapshot, "snapshot is null");
        requireNonNull(report, "report is null");
    }

    public static NvmlProbeResult unavailable(String reason)
    {
        return new NvmlProbeResult(Optional.empty(), ProbeReport.skipped(NvmlProbe.NAME, "NVML unavailable: " + reason));
    }

    public static NvmlProbeResult disabled(String why)
    {
        return new NvmlProbeResult(Optional.empty(), ProbeReport.skipped(NvmlProbe.NAME, why));
    }
}
