package dev.ferry.shuffle.transport.metrics;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import dev.ferry.topology.route.Route;

import static java.util.Objects.requireNonNull;

/**
 * Routes that did not work with a peer (an IPC handle that could not be opened, GPU memory the
 * peer's NIC refused to register, shared memory not visible), remembered per peer with the reason so
 * the peer's route is decided past them (also by a routing transport rebuilt over a larger probed
 * map), and counted per step ({@code PEER_GPU_D2H->HOST_STAGED}): once per peer, since after a step
 * the peer's fetches go straight to the next route. The reason is in the route log
 * ({@link PeerRouteLog}, once per peer and step). Thread-safe.
 */
public final class PeerRouteFallbacks
{
    private final Map<String, Map<Route, String>> refusedByPeer = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> bySteps = new ConcurrentHashMap<>();

    /**
     * {@code route} does not work with {@code peer} ({@code reason}); its fetches go {@code next}.
     * Returns false (and counts nothing) when that was already known.
     */
    public boolean refuse(String peer, Route route, Route next, String reason)
    {
        requireNonNull(next, "next is null");
        requireNonNull(reason, "reason is null");
        boolean first = refusedByPeer.computeIfAbsent(requireNonNull(peer, "peer is null"), ignored -> new ConcurrentHashMap<>())
                .putIfAbsent(requireNonNull(route, "route is null"), reason) == null;
        if (first) {
            bySteps.computeIfAbsent(step(route, next), ignored -> new AtomicLong()).incrementAndGet();
        }
        return first;
    }

    /** The name of one step, {@code FROM->TO} (as the exchange's metrics name it). */
    public static String step(Route from, Route to)
    {
        return requireNonNull(from, "from is null") + "->" + requireNonNull(to, "to is null");
    }

    /** Why {@code route} does not work with {@code peer}, if it was refused. */
    public Optional<String> refusal(String peer, Route route)
    {
        Map<Route, String> refused = refusedByPeer.get(peer);
        return refused == null ? Optional.empty() : Optional.ofNullable(refused.get(route));
    }

    /** Forgets the refusals of peers whose key starts with {@code prefix} (an executor that left). */
    public void forget(String prefix)
    {
        refusedByPeer.keySet().removeIf(key -> key.startsWith(prefix));
    }

    /** Peers that fell back from {@code from} to {@code to}. */
    public long count(Route from, Route to)
    {
        AtomicLong count = bySteps.get(step(from, to));
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
