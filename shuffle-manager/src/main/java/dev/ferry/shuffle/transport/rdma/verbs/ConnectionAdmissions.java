package dev.ferry.shuffle.transport.rdma.verbs;

import java.time.Duration;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import dev.ferry.shuffle.transport.auth.HandshakeFailures;

import static java.util.Objects.requireNonNull;

/**
 * Which queue pairs a device's listener may accept. RDMA CM runs beside Ferry's authenticated TCP
 * channel, not through it, so a device admits a connect request only with a {@link ConnectionToken}
 * it issued over that channel: random, one-time, bound to the TCP session that asked for it (gone
 * when that session closes) and short-lived (the device's connect timeout). A request whose token
 * is absent, unknown, reused or expired is refused before a queue pair exists, counted and logged
 * once per peer host per minute ({@link HandshakeFailures}). Thread-safe; outstanding tokens are
 * bounded.
 */
public final class ConnectionAdmissions
{
    /** Tokens issued and not yet expired, used or not: enough for every reader of a large cluster, bounded against a flood. */
    static final int MAX_OUTSTANDING = 16_384;
    /** Unused, unexpired tokens one TCP session may hold: a reader needs one per connect, so one peer cannot fill the table for others. */
    static final int MAX_PER_SESSION = 16;

    private final long lifetimeNanos;
    private final LongSupplier clock;
    private final HandshakeFailures failures;
    private final Map<String, Entry> issued = new ConcurrentHashMap<>();
    // Each session's tokens that may still count against MAX_PER_SESSION (pruned as they are used, expire or go),
    // so issuing one looks at that session's few tokens instead of every outstanding one. A set leaves this map only
    // while its lock is held (purge, revoke), and issue adds to a set only while holding its lock and seeing it still
    // mapped: so no token is added to a set already dropped, which would let the session's next set under-count it.
    private final Map<Long, Set<String>> unusedBySession = new ConcurrentHashMap<>();
    private final AtomicLong admitted = new AtomicLong();
    // Test seam: runs between an issue's lookup of its session's set and taking the set's lock, where a purge may drop it.
    private volatile Runnable afterSessionLookup = () -> {};

    /** What the device knows of one token: the session it was issued to, the NIC address named, its expiry, whether a queue pair used it. */
    private static final class Entry
    {
        final long session;
        final String readerHost;
        final long expiresNanos;
        boolean used;

        Entry(long session, String readerHost, long expiresNanos)
        {
            this.session = session;
            this.readerHost = readerHost;
            this.expiresNanos = expiresNanos;
        }
    }

    public ConnectionAdmissions(Duration lifetime)
    {
        this(lifetime, System::nanoTime, new HandshakeFailures(Duration.ofMinutes(1)));
    }

    ConnectionAdmissions(Duration lifetime, LongSupplier clock, HandshakeFailures failures)
    {
        this.lifetimeNanos = requireNonNull(lifetime, "lifetime is null").toNanos();
        if (lifetimeNanos <= 0) {
            throw new IllegalArgumentException("token lifetime must be positive: " + lifetime);
        }
        this.clock = requireNonNull(clock, "clock is null");
        this.failures = requireNonNull(failures, "failures is null");
    }

    /**
     * A token for one queue pair from {@code readerHost} (the reader's NIC address, as it told the
     * server over its authenticated session {@code session}).
     */
    public ConnectionToken issue(long session, String readerHost)
            throws VerbsException
    {
        requireNonNull(readerHost, "readerHost is null");
        long now = clock.getAsLong();
        if (issued.size() >= MAX_OUTSTANDING) {
            purgeExpired(now);
            if (issued.size() >= MAX_OUTSTANDING) {
                throw new VerbsException(MAX_OUTSTANDING + " RDMA connection tokens are outstanding; refusing another for " + readerHost);
            }
        }
        while (true) {
            Set<String> held = unusedBySession.computeIfAbsent(session, ignored -> new HashSet<>());
            afterSessionLookup.run();
            synchronized (held) {
                if (unusedBySession.get(session) != held) {
                    // A purge dropped this (then empty) set after we looked it up: count against the session's current one.
                    continue;
                }
                return issueCounted(held, session, readerHost, now);
            }
        }
    }

    /** Issues a token counted in {@code held}, the session's mapped set, whose lock the caller holds. */
    private ConnectionToken issueCounted(Set<String> held, long session, String readerHost, long now)
            throws VerbsException
    {
        held.removeIf(key -> {
            Entry entry = issued.get(key);
            return entry == null || entry.used || entry.expiresNanos - now <= 0;
        });
        if (held.size() >= MAX_PER_SESSION) {
            throw new VerbsException("The TCP session of " + readerHost + " holds " + held.size() + " unused RDMA connection tokens; refusing another");
        }
        ConnectionToken token = ConnectionToken.random();
        issued.put(token.key(), new Entry(session, readerHost, now + lifetimeNanos));
        held.add(token.key());
        return token;
    }

    /** The TCP session {@code session} closed: its tokens admit nothing any more. */
    public void revokeSession(long session)
    {
        Set<String> keys = unusedBySession.get(session);
        if (keys != null) {
            synchronized (keys) {
                unusedBySession.remove(session, keys);
            }
        }
        issued.values().removeIf(entry -> entry.session == session);
    }

    /**
     * Admits (and uses up) the token in a connect request's {@code privateData} from {@code peerHost},
     * or refuses it with the reason, counted and logged. Never throws for what a peer sent.
     */
    public boolean admit(byte[] privateData, String peerHost)
    {
        Optional<String> refusal = check(privateData, peerHost);
        if (refusal.isEmpty()) {
            admitted.incrementAndGet();
            return true;
        }
        failures.record(peerHost, "RDMA connect request from " + peerHost + " refused before a queue pair was created: " + refusal.get());
        return false;
    }

    /**
     * Admits (and uses up) the oldest outstanding token issued for {@code peerHost}, for a provider
     * whose listener cannot read a connect request's private data (DiSNI 2.1 hands an accept loop an
     * empty {@code RdmaConnParam}): still one queue pair per admission asked for over an
     * authenticated session, within its lifetime, from the NIC address the reader named there.
     */
    public boolean admitByAddress(String peerHost)
    {
        long now = clock.getAsLong();
        synchronized (this) {
            Entry oldest = null;
            for (Entry entry : issued.values()) {
                if (!entry.used && entry.expiresNanos - now > 0 && entry.readerHost.equals(peerHost) && (oldest == null || entry.expiresNanos - oldest.expiresNanos < 0)) {
                    oldest = entry;
                }
            }
            if (oldest != null) {
                oldest.used = true;
                admitted.incrementAndGet();
                return true;
            }
        }
        failures.record(peerHost, "RDMA connect request from " + peerHost + " refused before a queue pair was created: no outstanding admission for that address");
        return false;
    }

    private Optional<String> check(byte[] privateData, String peerHost)
    {
        if (privateData == null || privateData.length == 0) {
            return Optional.of("it carries no connection token");
        }
        if (privateData.length != ConnectionToken.BYTES) {
            return Optional.of("its private data (" + privateData.length + " bytes) is not a connection token");
        }
        long now = clock.getAsLong();
        Entry entry = issued.get(new ConnectionToken(privateData).key());
        if (entry == null) {
            return Optional.of("unknown connection token");
        }
        synchronized (entry) {
            if (entry.expiresNanos - now <= 0) {
                issued.values().remove(entry);
                return Optional.of("expired connection token");
            }
            if (entry.used) {
                return Optional.of("connection token already used");
            }
            if (!entry.readerHost.equals(peerHost)) {
                return Optional.of("connection token issued for " + entry.readerHost);
            }
            entry.used = true;
        }
        return Optional.empty();
    }

    /** For the race test: {@code hook} runs in each issue after its session's set was looked up. */
    void afterSessionLookup(Runnable hook)
    {
        afterSessionLookup = requireNonNull(hook, "hook is null");
    }

    /** Drops expired tokens and sessions without tokens; package-private for the race test. */
    void purgeExpired(long now)
    {
        for (Iterator<Entry> entries = issued.values().iterator(); entries.hasNext(); ) {
            if (entries.next().expiresNanos - now <= 0) {
                entries.remove();
            }
        }
        // Sessions whose tokens are all gone (closed without a revoke, or simply idle) stop being tracked; a set is
        // dropped under its lock, so an issue that holds it either sees it dropped (and takes a new one) or fills it first.
        for (Map.Entry<Long, Set<String>> session : unusedBySession.entrySet()) {
            Set<String> keys = session.getValue();
            synchronized (keys) {
                keys.removeIf(key -> !issued.containsKey(key));
                if (keys.isEmpty()) {
                    unusedBySession.remove(session.getKey(), keys);
                }
            }
        }
    }

    /** Queue pairs admitted so far. */
    public long admitted()
    {
        return admitted.get();
    }

    /** Connect requests refused so far (each counted; logged once per peer host per minute). */
    public long refused()
    {
        return failures.failures();
    }

    /** Tokens outstanding (issued, not yet purged). */
    int outstanding()
    {
        return issued.size();
    }
}
