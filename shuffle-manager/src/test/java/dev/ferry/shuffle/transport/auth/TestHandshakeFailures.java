package dev.ferry.shuffle.transport.auth;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Failed handshakes: all counted, logged once per peer host per interval. */
class TestHandshakeFailures
{
    @Test
    void oneLinePerHostPerInterval()
    {
        AtomicLong now = new AtomicLong();
        HandshakeFailures failures = new HandshakeFailures(Duration.ofSeconds(60), now::get);
        long totalBefore = HandshakeFailures.total();
        for (int i = 0; i < 100; i++) {
            failures.record("10.0.0.1", "refused 10.0.0.1 (test)");
        }
        failures.record("10.0.0.2", "refused 10.0.0.2 (test)");
        assertEquals(101, failures.failures());
        assertEquals(2, failures.logged());
        now.addAndGet(Duration.ofSeconds(61).toNanos());
        failures.record("10.0.0.1", "refused 10.0.0.1 again (test)");
        assertEquals(3, failures.logged(), "after the interval the host is logged again, with the count it skipped");
        assertEquals(totalBefore + 102, HandshakeFailures.total());
    }
}
