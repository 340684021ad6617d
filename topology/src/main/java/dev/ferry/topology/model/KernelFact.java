package dev.ferry.topology.model;

import static java.util.Objects.requireNonNull;

/**
 * One kernel fact and what it rests on.
 *
 * @param presence present, absent or unknown
 * @param evidence what was seen, e.g. {@code /sys/module/nvidia_fs exists} or {@code not probed: capture only}
 */
public record KernelFact(Presence presence, String evidence)
{
    public KernelFact
    {
        requireNonNull(presence, "presence is null");
        requireNonNull(evidence, "evidence is null");
    }

    public static KernelFact unknown(String evidence)
    {
        return new KernelFact(Presence.UNKNOWN, evidence);
    }
}
