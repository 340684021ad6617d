package dev.ferry.repartition;

import dev.ferry.shuffle.format.CorruptBlockException;
import dev.ferry.shuffle.transport.BlockFetchException;
import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.RouteUnavailableException;
import dev.ferry.topology.route.Route;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which fetch failures count as a gone executor (its maps rerun) and which fail the reduce task as before. */
class TestExecutorGone
{
    private static final PeerAddress PEER = new PeerAddress("3", "192.0.2.2", 40523, "dgx-b/GPU1");
    private static final Duration WAIT = Duration.ofMillis(500);

    @Test
    void refusedConnectionIsGoneWithoutAskingTheDriver()
            throws IOException
    {
        AtomicInteger asked = new AtomicInteger();
        IOException failure = new IOException("Cannot connect to " + PEER + " after 4 attempts: Connection refused", new ConnectException("Connection refused"));
        Optional<String> why = ExecutorGone.after("3", failure, id -> asked.incrementAndGet() > 0, WAIT);
        assertTrue(why.orElseThrow().contains("refused the connection"), why.toString());
        assertEquals(0, asked.get());
    }

    @Test
    void executorTheDriverNoLongerKnowsIsGone()
            throws IOException
    {
        Optional<String> why = ExecutorGone.after("3", closed(), id -> false, WAIT);
        assertTrue(why.orElseThrow().contains("no longer has it registered"), why.toString());
    }

    @Test
    void closedConnectionWaitsForTheDriverToRemoveTheExecutor()
            throws IOException
    {
        AtomicInteger asked = new AtomicInteger();
        // Registered for the first two questions, then removed.
        Predicate<String> registered = id -> asked.incrementAndGet() <= 2;
        Optional<String> why = ExecutorGone.after("3", closed(), registered, Duration.ofSeconds(5));
        assertTrue(why.orElseThrow().contains("the driver removed it"), why.toString());
        assertEquals(3, asked.get());
    }

    @Test
    void closedConnectionOfAnExecutorThatStaysRegisteredFailsAfterTheWait()
            throws IOException
    {
        long start = System.nanoTime();
        assertEquals(Optional.empty(), ExecutorGone.after("3", closed(), id -> true, WAIT));
        assertTrue(System.nanoTime() - start >= WAIT.toNanos(), "waited for the driver");
    }

    @Test
    void corruptBlocksTimeoutsAndRefusedRoutesOfARegisteredExecutorFailAtOnce()
            throws IOException
    {
        for (IOException failure : new IOException[] {
                new BlockFetchException(PEER, Optional.empty(), "Fetching from " + PEER + " failed", new CorruptBlockException("bad checksum in block 1")),
                new BlockFetchException(PEER, Optional.empty(), "No answer from " + PEER, new SocketTimeoutException("Read timed out")),
                new IOException("fetch", new RouteUnavailableException(Route.NVLINK, "cannot open the IPC handle", null))}) {
            long start = System.nanoTime();
            assertEquals(Optional.empty(), ExecutorGone.after("3", failure, id -> true, Duration.ofSeconds(30)), failure.toString());
            assertTrue(System.nanoTime() - start < Duration.ofSeconds(5).toNanos(), "no wait for " + failure);
        }
    }

    private static IOException closed()
    {
        return new BlockFetchException(PEER, Optional.empty(), "Fetching block shuffle_0_8_2 from " + PEER + " failed",
                new IOException("Connection to executor 3 at 192.0.2.2:40523 closed after 0 of 1 blocks"));
    }
}
