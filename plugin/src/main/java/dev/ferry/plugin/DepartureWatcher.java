package dev.ferry.plugin;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.util.Objects.requireNonNull;

/**
 * An executor's side of "executors that leave are dropped": asks the driver on a timer which
 * executors left since the last answer ({@link DepartureLog}) and has this executor's shuffle
 * transport close its connections to each and forget its cached route, without waiting for a
 * fetch to the departed peer to fail first. Each departure is handled and logged once, and
 * counted. A failed ask is logged (the first one as a warning, later ones at debug) and counted;
 * the next tick asks again from the same version, so no departure is missed.
 */
final class DepartureWatcher
        implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(DepartureWatcher.class);
    private static final AtomicLong DEPARTURES_HANDLED = new AtomicLong();
    private static final AtomicLong FAILED_ASKS = new AtomicLong();

    /** The driver, as the plugin context reaches it. */
    @FunctionalInterface
    interface Driver
    {
        Object ask(DeparturesRequest request)
                throws Exception;
    }

    /** What this executor keeps per peer: closes it for a departed executor and returns how many connections it closed. */
    @FunctionalInterface
    interface Peers
    {
        int peerLeft(String executorId);
    }

    private final String selfId;
    private final Driver driver;
    private final Peers peers;
    private long version;
    private ScheduledExecutorService timer;

    DepartureWatcher(String selfId, Driver driver, Peers peers)
    {
        this.selfId = requireNonNull(selfId, "selfId is null");
        this.driver = requireNonNull(driver, "driver is null");
        this.peers = requireNonNull(peers, "peers is null");
    }

    /** Asks the driver once and drops every executor that left since the last answer; returns them. */
    synchronized List<String> pollOnce()
    {
        Object answer;
        try {
            answer = driver.ask(new DeparturesRequest(version));
        }
        catch (Exception e) {
            if (FAILED_ASKS.incrementAndGet() == 1) {
                LOG.warn("Ferry executor {} could not ask the driver which executors left (will keep asking): {}", selfId, e.toString());
            }
            else {
                LOG.debug("Ferry executor {}: asking the driver for departures failed: {}", selfId, e.toString());
            }
            return List.of();
        }
        Departures departures = Departures.fromWire(answer);
        List<String> dropped = new ArrayList<>();
        for (String executorId : departures.executorIds()) {
            if (executorId.equals(selfId)) {
                continue;
            }
            int closed = peers.peerLeft(executorId);
            DEPARTURES_HANDLED.incrementAndGet();
            dropped.add(executorId);
            LOG.info("Ferry executor {}: executor {} left the cluster; closed {} connection(s) to it and dropped its route", selfId, executorId, closed);
        }
        version = departures.version();
        return dropped;
    }

    /** Polls every {@code interval} on a daemon thread until {@link #close}. */
    synchronized void start(Duration interval)
    {
        if (timer != null) {
            throw new IllegalStateException("Already started");
        }
        timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "ferry-departures-" + selfId);
            thread.setDaemon(true);
            return thread;
        });
        timer.scheduleWithFixedDelay(() -> {
            try {
                pollOnce();
            }
            catch (RuntimeException e) {
                LOG.warn("Ferry executor {}: handling departures failed: {}", selfId, e.toString());
            }
        }, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Departures this JVM's executor handled (dropped a peer for). */
    static long departuresHandled()
    {
        return DEPARTURES_HANDLED.get();
    }

    /** Asks for departures that failed. */
    static long failedAsks()
    {
        return FAILED_ASKS.get();
    }

    @Override
    public synchronized void close()
    {
        if (timer != null) {
            timer.shutdownNow();
            timer = null;
        }
    }
}
