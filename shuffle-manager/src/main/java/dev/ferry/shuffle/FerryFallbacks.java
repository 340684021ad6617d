package dev.ferry.shuffle;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every time Ferry hands work back to Spark (an exchange it cannot take, a store it cannot use) it
 * is logged once per reason and counted, so a silent fallback cannot hide a slow or wrong setup.
 */
public final class FerryFallbacks
{
    private static final Logger LOG = LoggerFactory.getLogger(FerryFallbacks.class);
    private static final Map<String, AtomicLong> COUNTS = new ConcurrentHashMap<>();

    private FerryFallbacks() {}

    public static void record(String what, String reason)
    {
        String key = what + ": " + reason;
        AtomicLong count = COUNTS.computeIfAbsent(key, ignored -> new AtomicLong());
        if (count.getAndIncrement() == 0) {
            LOG.warn("Ferry fallback, {}", key);
        }
        else {
            LOG.debug("Ferry fallback, {}", key);
        }
    }

    public static long total()
    {
        return COUNTS.values().stream().mapToLong(AtomicLong::get).sum();
    }

    public static Map<String, Long> counts()
    {
        Map<String, Long> copy = new java.util.TreeMap<>();
        COUNTS.forEach((key, value) -> copy.put(key, value.get()));
        return copy;
    }
}
