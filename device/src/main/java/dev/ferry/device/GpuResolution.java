package dev.ferry.device;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Which device of a runtime a Spark {@code gpu} address is, or why none is: the assigned GPU may
 * not be visible to this process ({@code CUDA_VISIBLE_DEVICES}, a container that exposes other
 * GPUs), and a caller that cannot find it must say so rather than pick another GPU.
 *
 * @param match the device, when the address was found among the runtime's devices
 * @param reason how it was matched, or why it was not (for logs and explain strings)
 */
public record GpuResolution(Optional<DeviceMatch> match, String reason)
{
    public GpuResolution
    {
        requireNonNull(match, "match is null");
        requireNonNull(reason, "reason is null");
    }

    public static GpuResolution matched(DeviceMatch match)
    {
        return new GpuResolution(Optional.of(match), match.reason());
    }

    public static GpuResolution unmatched(String reason)
    {
        return new GpuResolution(Optional.empty(), reason);
    }
}
