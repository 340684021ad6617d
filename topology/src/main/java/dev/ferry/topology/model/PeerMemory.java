package dev.ferry.topology.model;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Whether an RDMA NIC can register GPU memory, which GPUDirect RDMA needs.
 *
 * @param presence present, absent or unknown
 * @param mechanism when present: {@code nvidia_peermem}, {@code nv_peer_mem}, {@code memory_peers/nv_mem} or {@code dma-buf}
 * @param evidence what was seen, e.g. {@code /sys/module/nvidia_peermem/version = 535.104.05}
 */
public record PeerMemory(Presence presence, Optional<String> mechanism, String evidence)
{
    public PeerMemory
    {
        requireNonNull(presence, "presence is null");
        requireNonNull(mechanism, "mechanism is null");
        requireNonNull(evidence, "evidence is null");
        if (mechanism.isPresent() && presence != Presence.PRESENT) {
            throw new IllegalArgumentException("A peer-memory mechanism is only named when present");
        }
    }

    public static PeerMemory present(String mechanism, String evidence)
    {
        return new PeerMemory(Presence.PRESENT, Optional.of(mechanism), evidence);
    }

    public static PeerMemory absent(String evidence)
    {
        return new PeerMemory(Presence.ABSENT, Optional.empty(), evidence);
    }

    public static PeerMemory unknown(String evidence)
    {
        return new PeerMemory(Presence.UNKNOWN, Optional.empty(), evidence);
    }
}
