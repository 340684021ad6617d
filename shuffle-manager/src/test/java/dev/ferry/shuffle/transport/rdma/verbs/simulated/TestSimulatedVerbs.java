package dev.ferry.shuffle.transport.rdma.verbs.simulated;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import dev.ferry.shuffle.transport.TestBytes;
import dev.ferry.shuffle.transport.rdma.verbs.Access;
import dev.ferry.shuffle.transport.rdma.verbs.Completion;
import dev.ferry.shuffle.transport.rdma.verbs.CompletionStatus;
import dev.ferry.shuffle.transport.rdma.verbs.ConnectionToken;
import dev.ferry.shuffle.transport.rdma.verbs.MemoryRegion;
import dev.ferry.shuffle.transport.rdma.verbs.ReadRequest;
import dev.ferry.shuffle.transport.rdma.verbs.ReadTarget;
import dev.ferry.shuffle.transport.rdma.verbs.RegistrableMemory;
import dev.ferry.shuffle.transport.rdma.verbs.Registration;
import dev.ferry.shuffle.transport.rdma.verbs.RemoteReader;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsConnection;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsException;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsSettings;
import dev.ferry.shuffle.transport.rdma.verbs.WorkRequestIds;
import dev.ferry.shuffle.transport.wire.RemoteSlice;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The simulated verbs layer enforces what an HCA enforces (disni-notes.md, section 5), across a real loopback socket. */
class TestSimulatedVerbs
{
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final SimulatedNicOptions DEFAULT = new SimulatedNicOptions(true, 1 << 20, false, CmFault.NONE);
    private static final VerbsSettings SETTINGS = new VerbsSettings(64, 8, 256, Integer.MAX_VALUE, Duration.ofSeconds(10));

    private final List<SimulatedDevice> devices = new ArrayList<>();

    @AfterEach
    void closeDevices()
    {
        devices.forEach(SimulatedDevice::close);
    }

    private SimulatedDevice open(String name, SimulatedNicOptions options, VerbsSettings settings)
            throws VerbsException
    {
        SimulatedDevice device = new SimulatedVerbsProvider(options).openLoopbackDevice(name, settings);
        devices.add(device);
        return device;
    }

    /** What the server's block server hands this reader over its authenticated TCP session: a token for one queue pair. */
    private static ConnectionToken admitted(SimulatedDevice server)
            throws VerbsException
    {
        return server.admissions().issue(1, InetAddress.getLoopbackAddress().getHostAddress());
    }

    private static List<Completion> await(VerbsConnection connection, int count)
            throws Exception
    {
        List<Completion> completions = new ArrayList<>();
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (completions.size() < count) {
            completions.addAll(connection.poll(count - completions.size()));
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Only " + completions.size() + " of " + count + " completions within " + WAIT);
            }
            Thread.sleep(1);
        }
        return completions;
    }

    private static void awaitSlots(SimulatedConnection connection, int expected)
            throws InterruptedException
    {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (connection.slotsInUse() != expected) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("slots in use stayed " + connection.slotsInUse() + ", expected " + expected);
            }
            Thread.sleep(1);
        }
    }

    @Test
    void aQueuePairNeedsAFreshTokenTheListenerIssued()
            throws Exception
    {
        SimulatedDevice server = open("mlx5_0", DEFAULT, SETTINGS);
        SimulatedDevice client = open("mlx5_1", DEFAULT, SETTINGS);
        Registration source = server.protectionDomain().register(RegistrableMemory.host(TestBytes.direct(3, 4096)), Access.remoteReadable());
        Registration sink = client.protectionDomain().register(RegistrableMemory.host(ByteBuffer.allocateDirect(4096)), Access.readSink());
        List<ReadTarget> targets = List.of(new ReadTarget(source.remoteSlices(0, 4096).get(0), 0));

        // Forged (never issued), and issued by another device: both rejected before a queue pair exists.
        ConnectionToken forged = new ConnectionToken(new byte[ConnectionToken.BYTES]);
        VerbsException refused = assertThrows(VerbsException.class, () -> client.connect(server.listenAddress(), WAIT, forged));
        assertTrue(refused.getMessage().contains("REJECTED") && refused.getMessage().contains("not admitted"), refused.getMessage());
        assertThrows(VerbsException.class, () -> client.connect(server.listenAddress(), WAIT, admitted(client)));

        // Issued for another NIC address: refused too.
        ConnectionToken elsewhere = server.admissions().issue(1, "192.0.2.7");
        assertThrows(VerbsException.class, () -> client.connect(server.listenAddress(), WAIT, elsewhere));

        // Issued to a TCP session that has since closed.
        ConnectionToken revoked = server.admissions().issue(7, InetAddress.getLoopbackAddress().getHostAddress());
        server.admissions().revokeSession(7);
        assertThrows(VerbsException.class, () -> client.connect(server.listenAddress(), WAIT, revoked));
        assertEquals(0, server.acceptedQueuePairs());
        assertEquals(0, server.servedBytes());
        assertEquals(4, server.admissions().refused());

        // An admitted reader reads; its token then admits nothing more (replay).
        ConnectionToken token = admitted(server);
        try (VerbsConnection connection = client.connect(server.listenAddress(), WAIT, token)) {
            new RemoteReader(connection, SETTINGS, 4096).read(targets, sink, WAIT);
        }
        assertEquals(1, server.acceptedQueuePairs());
        assertEquals(4096, server.servedBytes());
        VerbsException replayed = assertThrows(VerbsException.class, () -> client.connect(server.listenAddress(), WAIT, token));
        assertTrue(replayed.getMessage().contains("not admitted"), replayed.getMessage());
        assertEquals(1, server.acceptedQueuePairs());
        assertEquals(4096, server.servedBytes());
        assertEquals(5, server.admissions().refused());
        assertEquals(1, server.admissions().admitted());
    }

    @Test
    void oneSidedReadDeliversExactlyTheRegisteredBytes()
            throws Exception
    {
        SimulatedDevice server = open("mlx5_0", DEFAULT, SETTINGS);
        SimulatedDevice client = open("mlx5_1", DEFAULT, SETTINGS);
        Registration source = server.protectionDomain().register(RegistrableMemory.host(TestBytes.direct(1, 65536)), Access.remoteReadable());
        ByteBuffer sinkBuffer = ByteBuffer.allocateDirect(65536);
        Registration sink = client.protectionDomain().register(RegistrableMemory.host(sinkBuffer), Access.readSink());
        for (MemoryRegion region : List.of(source.regions().get(0), sink.regions().get(0))) {
            assertNotEquals(region.lkey(), region.rkey(), "lkey and rkey differ, so publishing the lkey would fail as on real HCAs");
        }
        try (VerbsConnection connection = client.connect(server.listenAddress(), WAIT, admitted(server))) {
            List<ReadTarget> targets = new ArrayList<>();
            for (RemoteSlice slice : source.remoteSlices(0, 65536)) {
                targets.add(new ReadTarget(slice, slice.offset()));
            }
            new RemoteReader(connection, SETTINGS, 4096).read(targets, sink, WAIT);
        }
        assertArrayEquals(TestBytes.bytes(1, 65536), TestBytes.toArray(sinkBuffer));
    }

    @Test
    void aReadOutsideTheRegionIsRefusedAndFlushesTheRestOfTheQueue()
            throws Exception
    {
        SimulatedDevice server = open("mlx5_0", DEFAULT, SETTINGS);
        SimulatedDevice client = open("mlx5_1", DEFAULT, SETTINGS);
        MemoryRegion source = server.protectionDomain().register(RegistrableMemory.host(TestBytes.direct(2, 4096)), Access.remoteReadable()).regions().get(0);
        ByteBuffer sinkBuffer = ByteBuffer.allocateDirect(3 * 256);
        MemoryRegion sink = client.protectionDomain().register(RegistrableMemory.host(sinkBuffer), Access.readSink()).regions().get(0);
        try (VerbsConnection connection = client.connect(server.listenAddress(), WAIT, admitted(server))) {
            connection.postReads(List.of(
                    ReadRequest.into(1, sink, 0, source.address(), source.rkey(), 256, true),
                    // 4000 + 256 passes the end of the 4096-byte region by 160 bytes: the NIC must not read them.
                    ReadRequest.into(2, sink, 256, source.address() + 4000, source.rkey(), 256, false),
                    ReadRequest.into(3, sink, 512, source.address(), source.rkey(), 256, true)));
            List<Completion> completions = await(connection, 3);
            assertEquals(List.of(new Completion(1, CompletionStatus.SUCCESS, 256), new Completion(2, CompletionStatus.REM_ACCESS_ERR, 0),
                    new Completion(3, CompletionStatus.WR_FLUSH_ERR, 0)), completions, "an unsignaled READ still completes on error; the QP is then flushed");
        }
        byte[] expected = new byte[3 * 256];
        System.arraycopy(TestBytes.bytes(2, 256), 0, expected, 0, 256);
        assertArrayEquals(expected, TestBytes.toArray(sinkBuffer), "nothing lands for the refused or flushed READs");
    }

    @Test
    void unknownKeysAndMissingRemoteReadAccessAreRemoteAccessErrors()
            throws Exception
    {
        SimulatedDevice server = open("mlx5_0", DEFAULT, SETTINGS);
        SimulatedDevice client = open("mlx5_1", DEFAULT, SETTINGS);
        MemoryRegion readable = server.protectionDomain().register(RegistrableMemory.host(TestBytes.direct(3, 4096)), Access.remoteReadable()).regions().get(0);
        MemoryRegion localOnly = server.protectionDomain().register(RegistrableMemory.host(TestBytes.direct(4, 4096)), Access.readSink()).regions().get(0);
        MemoryRegion sink = client.protectionDomain().register(RegistrableMemory.host(ByteBuffer.allocateDirect(4096)), Access.readSink()).regions().get(0);
        int[] wrongKeys = {readable.rkey() ^ 1, readable.lkey(), localOnly.rkey()};
        long[] addresses = {readable.address(), readable.address(), localOnly.address()};
        for (int i = 0; i < wrongKeys.length; i++) {
            try (VerbsConnection connection = client.connect(server.listenAddress(), WAIT, admitted(server))) {
                connection.postReads(List.of(ReadRequest.into(10 + i, sink, 0, addresses[i], wrongKeys[i], 64, true)));
                assertEquals(CompletionStatus.REM_ACCESS_ERR, await(connection, 1).get(0).status(), "key " + i);
            }
        }
    }

    @Test
    void keysAreStaleAfterDeregistrationAndDeregisteringTwiceFails()
            throws Exception
    {
        SimulatedDevice server = open("mlx5_0", DEFAULT, SETTINGS);
        SimulatedDevice client = open("mlx5_1", DEFAULT, SETTINGS);
        Registration source = server.protectionDomain().register(RegistrableMemory.host(TestBytes.direct(5, 8192)), Access.remoteReadable());
        Registration sink = client.protectionDomain().register(RegistrableMemory.host(ByteBuffer.allocateDirect(8192)), Access.readSink());
        List<ReadTarget> targets = List.of(new ReadTarget(source.remoteSlices(0, 8192).get(0), 0));
        try (VerbsConnection connection = client.connect(server.listenAddress(), WAIT, admitted(server))) {
            new RemoteReader(connection, SETTINGS, 8192).read(targets, sink, WAIT);
        }
        source.deregister();
        assertEquals(0, server.registeredRegions());
        try (VerbsConnection connection = client.connect(server.listenAddress(), WAIT, admitted(server))) {
            VerbsException stale = assertThrows(VerbsException.class, () -> new RemoteReader(connection, SETTINGS, 8192).read(targets, sink, WAIT));
            assertTrue(stale.getMessage().contains("REM_ACCESS_ERR") && stale.getMessage().contains("deregistered rkey"), stale.getMessage());
        }
        VerbsException twice = assertThrows(VerbsException.class, source::deregister);
        assertTrue(twice.getMessage().contains("double deregistration"), twice.getMessage());
    }

    @Test
    void registrationFollowsTheDriversRules()
            throws Exception
    {
        SimulatedDevice device = open("mlx5_0", DEFAULT.withBar1Bytes(8192), SETTINGS);
        RegistrableMemory host = RegistrableMemory.host(ByteBuffer.allocateDirect(4096));
        VerbsException remoteWrite = assertThrows(VerbsException.class, () -> device.protectionDomain().register(host, EnumSet.of(Access.REMOTE_WRITE)));
        assertTrue(remoteWrite.getMessage().contains("requires LOCAL_WRITE"), remoteWrite.getMessage());
        assertThrows(IllegalArgumentException.class, () -> RegistrableMemory.host(ByteBuffer.allocate(4096)), "heap buffers cannot be registered");
        VerbsException pointer = assertThrows(VerbsException.class,
                () -> device.protectionDomain().register(RegistrableMemory.devicePointer(0, 0x7000_0000_0000L, 4096), Access.remoteReadable()));
        assertTrue(pointer.getMessage().contains("cannot address"), pointer.getMessage());

        Registration gpu = device.protectionDomain().register(RegistrableMemory.simulatedDevice(0, ByteBuffer.allocateDirect(8192)), Access.remoteReadable());
        assertEquals(8192, device.bar1Used(0));
        VerbsException bar1 = assertThrows(VerbsException.class,
                () -> device.protectionDomain().register(RegistrableMemory.simulatedDevice(0, ByteBuffer.allocateDirect(1)), Access.remoteReadable()));
        assertTrue(bar1.getMessage().contains("BAR1 of GPU 0"), bar1.getMessage());
        // Another GPU has its own BAR1.
        device.protectionDomain().register(RegistrableMemory.simulatedDevice(1, ByteBuffer.allocateDirect(4096)), Access.remoteReadable()).deregister();
        gpu.deregister();
        assertEquals(0, device.bar1Used(0));

        SimulatedDevice noPeermem = open("mlx5_1", DEFAULT.withPeermem(false), SETTINGS);
        VerbsException peermem = assertThrows(VerbsException.class,
                () -> noPeermem.protectionDomain().register(RegistrableMemory.simulatedDevice(0, ByteBuffer.allocateDirect(4096)), Access.remoteReadable()));
        assertTrue(peermem.getMessage().contains("nvidia_peermem"), peermem.getMessage());
        noPeermem.protectionDomain().register(RegistrableMemory.host(ByteBuffer.allocateDirect(4096)), Access.remoteReadable());
    }

    @Test
    void theLocalSinkMustBeRegisteredWritable()
            throws Exception
    {
        SimulatedDevice server = open("mlx5_0", DEFAULT, SETTINGS);
        SimulatedDevice client = open("mlx5_1", DEFAULT, SETTINGS);
        SimulatedDevice iwarpClient = open("iw_0", DEFAULT.withIwarp(true), SETTINGS);
        MemoryRegion source = server.protectionDomain().register(RegistrableMemory.host(TestBytes.direct(6, 4096)), Access.remoteReadable()).regions().get(0);
        MemoryRegion readOnlySink = client.protectionDomain().register(RegistrableMemory.host(ByteBuffer.allocateDirect(4096)), Access.remoteReadable()).regions().get(0);
        MemoryRegion ibSink = iwarpClient.protectionDomain().register(RegistrableMemory.host(ByteBuffer.allocateDirect(4096)), Access.readSink()).regions().get(0);
        MemoryRegion iwarpSink = iwarpClient.protectionDomain().register(RegistrableMemory.host(ByteBuffer.allocateDirect(4096)),
                EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE)).regions().get(0);
        try (VerbsConnection connection = client.connect(server.listenAddress(), WAIT, admitted(server))) {
            connection.postReads(List.of(ReadRequest.into(1, readOnlySink, 0, source.address(), source.rkey(), 64, true)));
            assertEquals(CompletionStatus.LOC_PROT_ERR, await(connection, 1).get(0).status());
        }
        try (VerbsConnection connection = client.connect(server.listenAddress(), WAIT, admitted(server))) {
            // A local key of another device's domain is unknown here.
            connection.postReads(List.of(ReadRequest.into(2, ibSink, 0, source.address(), source.rkey(), 64, true)));
            assertEquals(CompletionStatus.LOC_PROT_ERR, await(connection, 1).get(0).status());
        }
        try (VerbsConnection connection = iwarpClient.connect(server.listenAddress(), WAIT, admitted(server))) {
            connection.postReads(List.of(ReadRequest.into(3, ibSink, 0, source.address(), source.rkey(), 64, true)));
            assertEquals(CompletionStatus.LOC_PROT_ERR, await(connection, 1).get(0).status(), "iWARP sinks need REMOTE_WRITE too");
        }
        try (VerbsConnection connection = iwarpClient.connect(server.listenAddress(), WAIT, admitted(server))) {
            connection.postReads(List.of(ReadRequest.into(4, iwarpSink, 0, source.address(), source.rkey(), 64, true)));
            assertEquals(CompletionStatus.SUCCESS, await(connection, 1).get(0).status());
        }
        try (VerbsConnection connection = client.connect(server.listenAddress(), WAIT, admitted(server))) {
            // Longer than the HCA's largest message (max_msg_sz): refused locally before anything is sent.
            connection.postReads(List.of(new ReadRequest(5, readOnlySink.address(), readOnlySink.lkey(), source.address(), source.rkey(), (1 << 30) + 1, true)));
            assertEquals(CompletionStatus.LOC_LEN_ERR, await(connection, 1).get(0).status());
        }
    }

    @Test
    void registrationsLargerThanOneRegionAreChunkedAndReadAcrossBoundaries()
            throws Exception
    {
        VerbsSettings smallRegions = new VerbsSettings(64, 4, 256, 4096, Duration.ofSeconds(10));
        SimulatedDevice server = open("mlx5_0", DEFAULT, smallRegions);
        SimulatedDevice client = open("mlx5_1", DEFAULT, smallRegions);
        Registration source = server.protectionDomain().register(RegistrableMemory.host(TestBytes.direct(7, 10000)), Access.remoteReadable());
        assertEquals(3, source.regions().size());
        Set<Integer> rkeys = new HashSet<>();
        source.regions().forEach(region -> rkeys.add(region.rkey()));
        assertEquals(3, rkeys.size(), "each region has its own key");
        List<RemoteSlice> slices = source.remoteSlices(3000, 6000);
        assertEquals(List.of(1096, 4096, 808), slices.stream().map(RemoteSlice::length).toList());

        ByteBuffer sinkBuffer = ByteBuffer.allocateDirect(8000);
        Registration sink = client.protectionDomain().register(RegistrableMemory.host(sinkBuffer), Access.readSink());
        List<ReadTarget> targets = new ArrayList<>();
        for (RemoteSlice slice : slices) {
            targets.add(new ReadTarget(slice, 1000 + slice.offset()));
        }
        try (VerbsConnection connection = client.connect(server.listenAddress(), WAIT, admitted(server))) {
            new RemoteReader(connection, smallRegions, 1500).read(targets, sink, WAIT);
        }
        byte[] all = TestBytes.bytes(7, 10000);
        byte[] expected = new byte[6000];
        System.arraycopy(all, 3000, expected, 0, 6000);
        assertArrayEquals(expected, TestBytes.toArray(sinkBuffer.slice(1000, 6000)));
    }

    @Test
    void unsignaledReadsHoldQueueSlotsUntilASignaledCompletion()
            throws Exception
    {
        VerbsSettings shallow = new VerbsSettings(4, 2, 16, Integer.MAX_VALUE, Duration.ofSeconds(10));
        SimulatedDevice server = open("mlx5_0", DEFAULT, shallow);
        SimulatedDevice client = open("mlx5_1", DEFAULT, shallow);
        MemoryRegion source = server.protectionDomain().register(RegistrableMemory.host(TestBytes.direct(8, 4096)), Access.remoteReadable()).regions().get(0);
        MemoryRegion sink = client.protectionDomain().register(RegistrableMemory.host(ByteBuffer.allocateDirect(4096)), Access.readSink()).regions().get(0);
        try (SimulatedConnection connection = (SimulatedConnection) client.connect(server.listenAddress(), WAIT, admitted(server))) {
            List<ReadRequest> unsignaled = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                unsignaled.add(ReadRequest.into(WorkRequestIds.of(connection.id(), i), sink, 0, source.address(), source.rkey(), 64, false));
            }
            VerbsException full = assertThrows(VerbsException.class, () -> connection.postReads(unsignaled));
            assertTrue(full.getMessage().contains("Cannot allocate memory") && full.getMessage().contains("posted 4 of 5"), full.getMessage());
            // The four posted READs complete, but unsignaled, so they keep their slots.
            Thread.sleep(100);
            assertEquals(4, connection.slotsInUse());
            assertEquals(List.of(), connection.poll(10));
            assertThrows(VerbsException.class, () -> connection.postReads(List.of(unsignaled.get(0))));
        }
        try (SimulatedConnection connection = (SimulatedConnection) client.connect(server.listenAddress(), WAIT, admitted(server))) {
            List<ReadRequest> window = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                window.add(ReadRequest.into(WorkRequestIds.of(connection.id(), i), sink, 0, source.address(), source.rkey(), 64, i == 3));
            }
            connection.postReads(window);
            assertEquals(List.of(new Completion(window.get(3).wrId(), CompletionStatus.SUCCESS, 64)), await(connection, 1));
            awaitSlots(connection, 0);
            connection.postReads(window);
            await(connection, 1);
        }
    }

    @Test
    void anUnpolledCompletionQueueOverruns()
            throws Exception
    {
        VerbsSettings smallQueue = new VerbsSettings(8, 8, 2, Integer.MAX_VALUE, Duration.ofSeconds(10));
        SimulatedDevice server = open("mlx5_0", DEFAULT, smallQueue);
        SimulatedDevice client = open("mlx5_1", DEFAULT, smallQueue);
        MemoryRegion source = server.protectionDomain().register(RegistrableMemory.host(TestBytes.direct(9, 4096)), Access.remoteReadable()).regions().get(0);
        MemoryRegion sink = client.protectionDomain().register(RegistrableMemory.host(ByteBuffer.allocateDirect(4096)), Access.readSink()).regions().get(0);
        try (SimulatedConnection connection = (SimulatedConnection) client.connect(server.listenAddress(), WAIT, admitted(server))) {
            List<ReadRequest> reads = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                reads.add(ReadRequest.into(i, sink, 0, source.address(), source.rkey(), 64, true));
            }
            connection.postReads(reads);
            awaitSlots(connection, 0);
            VerbsException overrun = assertThrows(VerbsException.class, () -> connection.poll(10));
            assertTrue(overrun.getMessage().contains("overran"), overrun.getMessage());
        }
    }

    @Test
    void connectGivesUpAtItsDeadlineAndReportsRejectsAndUnreachablePeers()
            throws Exception
    {
        SimulatedDevice client = open("mlx5_1", DEFAULT, SETTINGS);
        SimulatedDevice silent = open("mlx5_0", DEFAULT.withCmFault(CmFault.DROP), SETTINGS);
        long start = System.nanoTime();
        VerbsException timeout = assertThrows(VerbsException.class, () -> client.connect(silent.listenAddress(), Duration.ofMillis(300), admitted(silent)));
        long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(timeout.getMessage().contains("timed out after 300 ms"), timeout.getMessage());
        assertTrue(elapsedMillis >= 250 && elapsedMillis < 5000, "the deadline ended the wait after " + elapsedMillis + " ms");

        SimulatedDevice rejecting = open("mlx5_2", DEFAULT.withCmFault(CmFault.REJECT), SETTINGS);
        VerbsException rejected = assertThrows(VerbsException.class, () -> client.connect(rejecting.listenAddress(), WAIT, admitted(rejecting)));
        assertTrue(rejected.getMessage().contains("REJECTED"), rejected.getMessage());

        InetSocketAddress nobody;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            nobody = (InetSocketAddress) socket.getLocalSocketAddress();
        }
        VerbsException unreachable = assertThrows(VerbsException.class, () -> client.connect(nobody, WAIT, admitted(client)));
        assertTrue(unreachable.getMessage().contains("UNREACHABLE"), unreachable.getMessage());
    }

    @Test
    void closingFlushesOutstandingReadsAndRefusesNewOnes()
            throws Exception
    {
        SimulatedDevice server = open("mlx5_0", DEFAULT, SETTINGS);
        SimulatedDevice client = open("mlx5_1", DEFAULT, SETTINGS);
        MemoryRegion source = server.protectionDomain().register(RegistrableMemory.host(TestBytes.direct(10, 1 << 20)), Access.remoteReadable()).regions().get(0);
        MemoryRegion sink = client.protectionDomain().register(RegistrableMemory.host(ByteBuffer.allocateDirect(1 << 20)), Access.readSink()).regions().get(0);
        VerbsConnection connection = client.connect(server.listenAddress(), WAIT, admitted(server));
        List<ReadRequest> reads = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            reads.add(ReadRequest.into(i, sink, 0, source.address(), source.rkey(), 1 << 20, true));
        }
        connection.postReads(reads);
        connection.close();
        List<Completion> completions = connection.poll(100);
        assertEquals(64, completions.size(), "every signaled READ completes, by success or by flush");
        for (Completion completion : completions) {
            assertTrue(completion.status() == CompletionStatus.SUCCESS || completion.status() == CompletionStatus.WR_FLUSH_ERR, completion.toString());
        }
        VerbsException closed = assertThrows(VerbsException.class, () -> connection.postReads(List.of(reads.get(0))));
        assertTrue(closed.getMessage().contains("Trying to post send on closed QP"), closed.getMessage());
    }

    @Test
    void aPeerThatDiesFailsTheReadInsteadOfHanging()
            throws Exception
    {
        SimulatedDevice server = open("mlx5_0", DEFAULT, SETTINGS);
        SimulatedDevice client = open("mlx5_1", DEFAULT, SETTINGS);
        Registration source = server.protectionDomain().register(RegistrableMemory.host(TestBytes.direct(11, 4096)), Access.remoteReadable());
        Registration sink = client.protectionDomain().register(RegistrableMemory.host(ByteBuffer.allocateDirect(4096)), Access.readSink());
        try (VerbsConnection connection = client.connect(server.listenAddress(), WAIT, admitted(server))) {
            server.close();
            VerbsException dead = assertThrows(VerbsException.class,
                    () -> new RemoteReader(connection, SETTINGS, 4096).read(List.of(new ReadTarget(source.remoteSlices(0, 4096).get(0), 0)), sink, WAIT));
            assertTrue(dead.getMessage().contains("RETRY_EXC_ERR"), dead.getMessage());
        }
    }

    @Test
    void completionStatusesMapFromRawValuesLikeDisni()
    {
        assertEquals(CompletionStatus.LOC_PROT_ERR, CompletionStatus.fromRaw(4));
        assertEquals(CompletionStatus.WR_FLUSH_ERR, CompletionStatus.fromRaw(5));
        assertEquals(CompletionStatus.REM_ACCESS_ERR, CompletionStatus.fromRaw(10));
        assertEquals(CompletionStatus.RETRY_EXC_ERR, CompletionStatus.fromRaw(12));
        assertEquals(CompletionStatus.RNR_RETRY_EXC_ERR, CompletionStatus.fromRaw(13));
        assertEquals(CompletionStatus.GENERAL_ERR, CompletionStatus.fromRaw(99), "an unknown status is an error, never success");
        long wrId = WorkRequestIds.of(0xBEEF, 123456789L);
        assertEquals(0xBEEF, WorkRequestIds.connectionId(wrId));
        assertEquals(123456789L, WorkRequestIds.sequence(wrId));
    }
}
