package dev.ferry.shuffle.transport.metrics;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import dev.ferry.topology.route.Route;

import static java.util.Objects.requireNonNull;

/**
 * Peers whose route did not work between the two processes and fell back to the route policy's
 * next choice (an IPC handle that could not be opened, GPU memory the peer's NIC refused to
 * register, shared memory not visible), counted per step ({@code PEER_GPU_D2H->HOST_STAGED}). A
 * peer is counted once per step: after it the peer's fetches go straight to the new route. The
 * reason is in the route log ({@link PeerRouteLog}, once per peer). Thread-safe.
 */
public final class PeerRouteFallbacks
{
    private final Map<String, AtomicLong> bySteps = new ConcurrentHashMap<>();

    public void record(Route from, Route to)
    {
        bySteps.computeIfAbsent(requireNonNull(from, "from is null") + "->" + requireNonNull(to, "to is null"), ignored -> new AtomicLong()).incrementAndGet();
    }

    /** Peers that fell back from {@code from} to {@code to}. */
    public long count(Route from, Route to)
    {
        AtomicLong count = bySteps.get(from + "->" + to);
        return count == null ? 0 : count.get();
    }

    public long total()
    {
        return bySteps.values().stream().mapToLong(AtomicLong::get).sum();
    }

    /** Every step taken, e.g. {@code PEER_GPU_D2H->HOST_STAGED=1}. */
    public Map<String, Long> counts()
    {
        Map<String, Long> copy = new TreeMap<>();
        bySteps.forEach((step, count) -> copy.put(step, count.get()));
        return copy;
    }
}
