package dev.ferry.topology.probe.nvml;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Whether NVML could be opened, and if not, why.
 *
 * @param library the opened library, when it could be
 * @param reason why not, e.g. {@code UnsatisfiedLinkError: no jninvml ...}; a short description when it could
 */
public record NvmlAvailability(Optional<NvmlLibrary> library, String reason)
{
    public NvmlAvailability
    {
        requireNonNull(library, "library is null");
        requireNonNull(reason, "reason is null");
    }

    public static NvmlAvailability available(NvmlLibrary library)
    {
        return new NvmlAvailability(Optional.of(library), "loaded");
    }

    public static NvmlAvailability unavailable(String reason)
    {
        return new NvmlAvailability(Optional.empty(), reason);
    }

    public boolean isAvailable()
    {
        return library.isPresent();
    }
}
