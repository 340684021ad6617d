package dev.ferry.shuffle.transport.rdma.verbs;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import dev.ferry.shuffle.transport.auth.HandshakeFailures;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A listener admits one queue pair per token it issued: never an absent, unknown, reused, expired or revoked one. */
class TestConnectionAdmissions
{
    private static final String READER = "10.0.0.2";

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final HandshakeFailures failures = new HandshakeFailures(Duration.ofMinutes(1));
    private final ConnectionAdmissions admissions = new ConnectionAdmissions(Duration.ofSeconds(5), now::get, failures);

    @Test
    void aTokenAdmitsOneQueuePairFromTheAddressItWasIssuedFor()
            throws Exception
    {
        ConnectionToken token = admissions.issue(1, READER);
        assertFalse(admissions.admit(token.privateData(), "10.0.0.3"), "another address");
        assertTrue(admissions.admit(token.privateData(), READER));
        assertFalse(admissions.admit(token.privateData(), READER), "replayed");
        assertEquals(1, admissions.admitted());
        assertEquals(2, admissions.refused());
        assertNotEquals(token, admissions.issue(1, READER), "tokens are random");
    }

    @Test
    void absentForgedExpiredAndRevokedTokensAreRefused()
            throws Exception
    {
        assertFalse(admissions.admit(null, READER));
        assertFalse(admissions.admit(new byte[0], READER));
        assertFalse(admissions.admit(new byte[7], READER), "not a token's length");
        assertFalse(admissions.admit(new byte[ConnectionToken.BYTES], READER), "never issued");

        ConnectionToken expiring = admissions.issue(1, READER);
        now.addAndGet(Duration.ofSeconds(5).toNanos());
        assertFalse(admissions.admit(expiring.privateData(), READER), "expired");

        ConnectionToken revoked = admissions.issue(2, READER);
        ConnectionToken kept = admissions.issue(3, READER);
        admissions.revokeSession(2);
        assertFalse(admissions.admit(revoked.privateData(), READER), "its TCP session closed");
        assertTrue(admissions.admit(kept.privateData(), READER), "another session's token is untouched");
        assertEquals(6, admissions.refused());
        assertEquals(6, failures.failures(), "counted by the handshake-failure throttle");
        assertEquals(1, failures.logged(), "logged once per peer host per interval");
    }

    @Test
    void byAddressOneQueuePairPerOutstandingAdmission()
            throws Exception
    {
        assertFalse(admissions.admitByAddress(READER), "nothing was asked for");
        admissions.issue(1, READER);
        assertFalse(admissions.admitByAddress("10.0.0.3"));
        assertTrue(admissions.admitByAddress(READER));
        assertFalse(admissions.admitByAddress(READER), "one admission, one queue pair");
        admissions.issue(1, READER);
        now.addAndGet(Duration.ofSeconds(6).toNanos());
        assertFalse(admissions.admitByAddress(READER), "expired");
    }

    @Test
    void outstandingTokensAreBounded()
            throws Exception
    {
        for (int i = 0; i < ConnectionAdmissions.MAX_PER_SESSION; i++) {
            admissions.issue(-1, READER);
        }
        assertTrue(org.junit.jupiter.api.Assertions.assertThrows(VerbsException.class, () -> admissions.issue(-1, READER)).getMessage().contains("unused"),
                "one session cannot hoard tokens");
        admissions.revokeSession(-1);
        for (int i = 0; i < ConnectionAdmissions.MAX_OUTSTANDING; i++) {
            admissions.issue(i, READER);
        }
        assertTrue(org.junit.jupiter.api.Assertions.assertThrows(VerbsException.class, () -> admissions.issue(0, READER)).getMessage().contains("outstanding"));
        now.addAndGet(Duration.ofSeconds(6).toNanos());
        admissions.issue(0, READER);
        assertEquals(1, admissions.outstanding(), "expired ones were purged");
    }

    @Test
    void aPurgeRacingAnIssueNeverLetsASessionPastItsBound()
            throws Exception
    {
        // A purge drops a session's set while it is empty, which is just when the session's first issue has looked it up
        // (and not yet locked it): that token must still count, or the session could hold MAX_PER_SESSION + 1 unused tokens.
        java.util.concurrent.atomic.AtomicBoolean once = new java.util.concurrent.atomic.AtomicBoolean();
        admissions.afterSessionLookup(() -> {
            if (once.compareAndSet(false, true)) {
                admissions.purgeExpired(now.get());
            }
        });
        for (int i = 0; i < ConnectionAdmissions.MAX_PER_SESSION; i++) {
            admissions.issue(7, READER);
        }
        assertTrue(once.get(), "the purge ran inside the first issue");
        assertTrue(org.junit.jupiter.api.Assertions.assertThrows(VerbsException.class, () -> admissions.issue(7, READER)).getMessage().contains("unused"),
                "the token issued across the purge counts: the session is at its bound");
        assertEquals(ConnectionAdmissions.MAX_PER_SESSION, admissions.outstanding());
    }
}
