package dev.ferry.shuffle.transport.auth;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.util.Objects.requireNonNull;

/**
 * Failed handshakes of a server: every one counted (a metric), logged at most once per peer host
 * per interval, with how many were not logged since, so a peer hammering the port cannot flood the
 * executor's log. Thread-safe; the number of remembered hosts is bounded.
 */
public final class HandshakeFailures
{
    private static final Logger LOG = LoggerFactory.getLogger(HandshakeFailures.class);
    private static final int MAX_REMEMBERED_HOSTS = 4096;
    private static final AtomicLong TOTAL = new AtomicLong();

    private final long intervalNanos;
    private final LongSupplier clock;
    private final Map<String, long[]> lastLogged = new ConcurrentHashMap<>();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong logged = new AtomicLong();

    public HandshakeFailures(Duration interval)
    {
        this(interval, System::nanoTime);
    }

    HandshakeFailures(Duration interval, LongSupplier clock)
    {
        this.intervalNanos = requireNonNull(interval, "interval is null").toNanos();
        this.clock = requireNonNull(clock, "clock is null");
    }

    /** Counts a failure of {@code host} and logs it unless that host was logged within the interval. */
    public void record(String host, String what)
    {
        failures.incrementAndGet();
        TOTAL.incrementAndGet();
        long now = clock.getAsLong();
        if (lastLogged.size() >= MAX_REMEMBERED_HOSTS && !lastLogged.containsKey(host)) {
            lastLogged.clear();
        }
        // Entry: {time logged, failures suppressed since}.
        long[] entry = lastLogged.computeIfAbsent(host, ignored -> new long[] {now - intervalNanos - 1, 0});
        long suppressed;
        synchronized (entry) {
            if (now - entry[0] <= intervalNanos) {
                entry[1]++;
                return;
            }
            suppressed = entry[1];
            entry[0] = now;
            entry[1] = 0;
        }
        logged.incrementAndGet();
        LOG.warn("{}{}", what, suppressed == 0 ? "" : " (" + suppressed + " more failure(s) from " + host + " not logged)");
    }

    /** Failures this server saw. */
    public long failures()
    {
        return failures.get();
    }

    /** Log lines written. */
    public long logged()
    {
        return logged.get();
    }

    /** Failed handshakes of every server in this JVM (a metric). */
    public static long total()
    {
        return TOTAL.get();
    }
}
