package dev.ferry.gds.route;

import static java.util.Objects.requireNonNull;

/**
 * @param available whether a GPU is usable
 * @param reason versions and devices when available, what failed when not
 */
public record DeviceVerdict(boolean available, String reason)
{
    public DeviceVerdict
    {
        requireNonNull(reason, "reason is null");
    }
}
