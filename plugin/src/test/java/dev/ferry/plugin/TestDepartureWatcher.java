package dev.ferry.plugin;

import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ferry.shuffle.store.BlockBytes;
import dev.ferry.shuffle.transport.FetchedBlocks;
import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.routing.BlockServers;
import dev.ferry.shuffle.transport.server.TcpBlockServer;
import dev.ferry.shuffle.transport.client.TcpShuffleTransport;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.spark.scheduler.SparkListenerExecutorRemoved;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Executors learn from the driver which peers left and drop each one once. */
class TestDepartureWatcher
{
    @Test
    void eachDepartureIsHandledOnceAndAnExecutorIgnoresItsOwn()
    {
        DepartureLog log = new DepartureLog();
        ExecutorDepartures listener = new ExecutorDepartures(new ClusterRegistry(), log);
        Map<String, Integer> dropped = new LinkedHashMap<>();
        DepartureWatcher watcher = new DepartureWatcher("2", request -> log.since(request.sinceVersion()).toWire(), executorId -> {
            dropped.merge(executorId, 1, Integer::sum);
            return 3;
        });
        long handled = DepartureWatcher.departuresHandled();
        assertEquals(List.of(), watcher.pollOnce());

        listener.onExecutorRemoved(new SparkListenerExecutorRemoved(1L, "1", "Executor lost"));
        listener.onExecutorRemoved(new SparkListenerExecutorRemoved(2L, "1", "reported twice"));
        listener.onExecutorRemoved(new SparkListenerExecutorRemoved(3L, "2", "this executor, as seen by a late answer"));
        assertEquals(List.of("1"), watcher.pollOnce());
        assertEquals(List.of(), watcher.pollOnce(), "nothing new since the last answer");
        listener.onExecutorRemoved(new SparkListenerExecutorRemoved(4L, "5", "killed"));
        assertEquals(List.of("5"), watcher.pollOnce());
        assertEquals(Map.of("1", 1, "5", 1), dropped);
        assertEquals(handled + 2, DepartureWatcher.departuresHandled());
    }

    @Test
    void aFailedAskIsCountedAndTheNextAskStartsFromTheSameVersion()
    {
        DepartureLog log = new DepartureLog();
        log.record("1");
        AtomicInteger asks = new AtomicInteger();
        DepartureWatcher watcher = new DepartureWatcher("2", request -> {
            if (asks.incrementAndGet() == 1) {
                throw new java.util.concurrent.TimeoutException("driver busy");
            }
            return log.since(request.sinceVersion()).toWire();
        }, executorId -> 0);
        long failed = DepartureWatcher.failedAsks();
        assertEquals(List.of(), watcher.pollOnce());
        assertEquals(failed + 1, DepartureWatcher.failedAsks());
        assertEquals(List.of("1"), watcher.pollOnce(), "the departure is not lost with the failed ask");
    }

    @Test
    void theDriverPluginAnswersFromItsLogAndRefusesVersionsItNeverGave()
    {
        FerryDriverPlugin driver = new FerryDriverPlugin();
        Object reply = driver.receive(new DeparturesRequest(0));
        // The reply crosses the executor's RPC layer, which cannot load classes of a --jars plugin jar.
        assertEquals(String[].class, reply.getClass());
        assertEquals(new Departures(0, List.of()), Departures.fromWire(reply));
        assertThrows(IllegalArgumentException.class, () -> driver.receive(new DeparturesRequest(1)));
        DepartureLog log = new DepartureLog();
        log.record("3");
        log.record("4");
        assertEquals(new Departures(2, List.of("4")), log.since(1));
    }

    /** End to end with the real stream transport: the departed peer's pooled connection is closed without a failed fetch. */
    @Test
    void aDepartedPeersPooledConnectionIsClosed()
            throws Exception
    {
        DepartureLog log = new DepartureLog();
        try (BufferAllocator allocator = new RootAllocator();
                TcpBlockServer server = BlockServers.builder(ref -> {
                    ArrowBuf buffer = allocator.buffer(100);
                    buffer.setZero(0, 100);
                    return Optional.of(new BlockBytes(buffer, 100));
                }).bind(InetAddress.getLoopbackAddress(), 0).maxFrameBytes(1 << 20).start();
                TcpShuffleTransport transport = new TcpShuffleTransport(10_000, 1 << 20)) {
            PeerAddress peer = new PeerAddress("1", "localhost", server.port());
            try (FetchedBlocks fetched = transport.fetch(peer, List.of(new ShuffleBlockRef(1, 1, 0)), allocator)) {
                assertEquals(100, fetched.blocks().get(0).length());
            }
            assertEquals(1, transport.idleConnections());
            DepartureWatcher watcher = new DepartureWatcher("2", request -> log.since(request.sinceVersion()).toWire(), transport::peerLeft);
            new ExecutorDepartures(new ClusterRegistry(), log).onExecutorRemoved(new SparkListenerExecutorRemoved(1L, "1", "Executor killed"));
            assertEquals(List.of("1"), watcher.pollOnce());
            assertEquals(0, transport.idleConnections());
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (server.openConnections() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(0, server.openConnections(), "the departed peer's end saw the close");
        }
    }
}
