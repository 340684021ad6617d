package dev.ferry.device;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * What {@link DeviceRuntime#copyFromPeer} did: copied {@code bytes} directly between two GPUs (or
 * within one, when both buffers are on the same device), or nothing, with the reason peer access
 * was refused so the caller can take another route.
 *
 * @param bytes bytes copied (0 when refused)
 * @param refusal why the devices cannot copy peer-to-peer; empty when the copy ran
 * @param sameDevice whether source and target were on one device (a device-local copy, no peer link)
 */
public record PeerCopy(long bytes, Optional<String> refusal, boolean sameDevice)
{
    public PeerCopy
    {
        requireNonNull(refusal, "refusal is null");
    }

    public boolean copied()
    {
        return refusal.isEmpty();
    }
}
