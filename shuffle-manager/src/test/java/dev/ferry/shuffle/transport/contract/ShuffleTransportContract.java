package dev.ferry.shuffle.transport.contract;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.ferry.shuffle.format.CorruptBlockException;
import dev.ferry.shuffle.transport.BlockFetchException;
import dev.ferry.shuffle.transport.FetchedBlocks;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.ShuffleTransport;
import dev.ferry.shuffle.transport.TestBytes;
import dev.ferry.topology.route.Route;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What every shuffle transport promises, whatever route carries the bytes. One concrete subclass
 * per transport family starts a serving peer and a reader over its route ({@link #start});
 * real-hardware families skip with their probe's reason ({@link #assumeAvailable}).
 *
 * <ul>
 * <li>blocks of every size (empty, one byte, multi-chunk) arrive intact, in request order, named by the route;</li>
 * <li>reads are bounds-checked by the data path itself;</li>
 * <li>an unknown block is an {@link IOException} naming the peer and the block;</li>
 * <li>with authentication on, the right secret is served and a wrong or missing one refused: nothing served, one log line;</li>
 * <li>with encryption on, blocks travel the encrypted stream only and no plaintext of them crosses a socket;</li>
 * <li>hostile frames (huge, negative, unknown, a request before authentication, garbage) are refused before allocation, answered with nothing;</li>
 * <li>concurrent fetches all succeed; sequential fetches reuse one connection;</li>
 * <li>closing releases every buffer, registration, shared-memory file and device buffer;</li>
 * <li>faults (peer death, a transfer cut short, a stale region key, a flipped byte) end in an
 *     exception naming the peer and block, or, for a flipped byte the wire did not catch, in bytes
 *     the reader's block checksum refuses: never a wrong block accepted, never a hang.</li>
 * </ul>
 */
public abstract class ShuffleTransportContract
{
    /** A fresh directory per test for the endpoints' shared-memory files and spills. */
    @TempDir
    protected Path contractDirectory;

    private BufferAllocator allocator;
    private final List<ContractEndpoints> started = new ArrayList<>();

    /** A fresh directory for one endpoint pair of this test. */
    protected Path endpointDirectory()
    {
        return contractDirectory.resolve("endpoints-" + started.size() + "-" + System.nanoTime());
    }

    /** The route this family's fetches report. */
    protected abstract Route route();

    /** The route a fetched block reports: the decided one, unless the data path names what it really crossed. */
    protected Route carriedRoute()
    {
        return route();
    }

    /** Starts a serving peer with {@link ContractBlocks#all} and a reader under {@code security} (Spark's shared secret, if any, and encryption). */
    protected abstract ContractEndpoints start(ContractSecurity security, ContractFault fault)
            throws Exception;

    /** The faults this family can inject; the others are skipped with a reason. */
    protected abstract Set<ContractFault> injectableFaults();

    /** Skips the whole suite (JUnit assumption) where the family's hardware or library is absent, with the probe's reason. */
    protected void assumeAvailable()
    {
    }

    /** Whether the family serves empty blocks (device stores hold no empty buffers). */
    protected boolean servesEmptyBlocks()
    {
        return true;
    }

    @BeforeEach
    final void setUpContract()
    {
        assumeAvailable();
        allocator = new RootAllocator();
    }

    @AfterEach
    final void tearDownContract()
            throws Exception
    {
        for (ContractEndpoints endpoints : started) {
            endpoints.close();
        }
        for (ContractEndpoints endpoints : started) {
            endpoints.assertReleased();
        }
        if (allocator != null) {
            assertEquals(0, allocator.getAllocatedMemory(), "the reader released every fetched block");
            allocator.close();
        }
    }

    private ContractEndpoints endpoints(Optional<String> secret, ContractFault fault)
            throws Exception
    {
        return endpoints(ContractSecurity.of(secret), fault);
    }

    private ContractEndpoints endpoints(ContractSecurity security, ContractFault fault)
            throws Exception
    {
        ContractEndpoints endpoints = start(security, fault);
        started.add(endpoints);
        return endpoints;
    }

    private static byte[] bytes(FetchedBlocks fetched, int index)
    {
        byte[] copy = new byte[Math.toIntExact(fetched.blocks().get(index).length())];
        fetched.blocks().get(index).buffer().getBytes(0, copy);
        return copy;
    }

    private void assertServesAll(ShuffleTransport reader, ContractEndpoints endpoints)
            throws IOException
    {
        Map<ShuffleBlockRef, byte[]> expected = ContractBlocks.all(servesEmptyBlocks());
        List<ShuffleBlockRef> refs = new ArrayList<>(expected.keySet());
        try (FetchedBlocks fetched = reader.fetch(endpoints.peer(), refs, allocator)) {
            assertEquals(refs.size(), fetched.blocks().size());
            for (int i = 0; i < refs.size(); i++) {
                assertEquals(carriedRoute().name(), fetched.routeOf(i), refs.get(i).toString());
                assertArrayEquals(expected.get(refs.get(i)), bytes(fetched, i), refs.get(i) + " over " + route());
            }
        }
    }

    @Test
    void blocksOfEverySizeArriveIntactInRequestOrder()
            throws Exception
    {
        ContractEndpoints endpoints = endpoints(Optional.empty(), ContractFault.NONE);
        assertServesAll(endpoints.reader(), endpoints);
        // The same blocks again, reversed and one alone: order follows the request, not the server.
        List<ShuffleBlockRef> reversed = new ArrayList<>(ContractBlocks.refs(servesEmptyBlocks()));
        java.util.Collections.reverse(reversed);
        Map<ShuffleBlockRef, byte[]> expected = ContractBlocks.all(servesEmptyBlocks());
        try (FetchedBlocks fetched = endpoints.reader().fetch(endpoints.peer(), reversed, allocator)) {
            for (int i = 0; i < reversed.size(); i++) {
                assertArrayEquals(expected.get(reversed.get(i)), bytes(fetched, i), reversed.get(i).toString());
            }
        }
        try (FetchedBlocks fetched = endpoints.reader().fetch(endpoints.peer(), List.of(ContractBlocks.MULTI_CHUNK), allocator)) {
            assertEquals(ContractBlocks.MULTI_CHUNK_BYTES, fetched.blocks().get(0).length());
        }
    }

    @Test
    void readsAreBoundsChecked()
            throws Exception
    {
        ContractEndpoints endpoints = endpoints(Optional.empty(), ContractFault.NONE);
        Exception refused = endpoints.readOutOfBounds();
        assertNotNull(refused, "a read past the end of a served block must be refused by the " + route() + " data path");
        assertServesAll(endpoints.reader(), endpoints);
    }

    @Test
    void unknownBlockFailsNamingPeerAndBlock()
            throws Exception
    {
        ContractEndpoints endpoints = endpoints(Optional.empty(), ContractFault.NONE);
        IOException missing = assertThrows(IOException.class,
                () -> endpoints.reader().fetch(endpoints.peer(), List.of(ContractBlocks.SMALL, ContractBlocks.MISSING), allocator));
        assertTrue(missing.getMessage().contains(ContractBlocks.MISSING.toString()), missing.getMessage());
        assertTrue(missing.getMessage().contains(endpoints.peer().toString()), missing.getMessage());
        assertEquals(Optional.of(ContractBlocks.MISSING), BlockFetchException.blockOf(missing), "the failure is attributed to the block that failed, not the request's first");
        // The failure released what had arrived and did not poison the transport.
        assertServesAll(endpoints.reader(), endpoints);
    }

    @Test
    void authenticationIsRequiredWhenOn()
            throws Exception
    {
        ContractEndpoints endpoints = endpoints(Optional.of("contract-secret"), ContractFault.NONE);
        assertServesAll(endpoints.reader(), endpoints);
        try (ShuffleTransport wrong = endpoints.reader(Optional.of("not-the-secret"))) {
            IOException refused = assertThrows(IOException.class, () -> wrong.fetch(endpoints.peer(), List.of(ContractBlocks.SMALL), allocator));
            assertTrue(refused.getMessage().contains(endpoints.peer().toString()), refused.getMessage());
        }
        try (ShuffleTransport none = endpoints.reader(Optional.empty())) {
            assertThrows(IOException.class, () -> none.fetch(endpoints.peer(), List.of(ContractBlocks.SMALL), allocator));
        }
        assertServesAll(endpoints.reader(), endpoints);
    }

    /**
     * RDMA connection setup is gated by the authenticated stream: with spark.authenticate on, the
     * reader (admitted over its authenticated session) is served, and a stranger's connect requests
     * to the serving NIC without such an admission (none, forged, replayed) get no queue pair.
     */
    @Test
    void queuePairsAreAdmittedOnlyThroughTheAuthenticatedStream()
            throws Exception
    {
        ContractEndpoints endpoints = endpoints(Optional.of("contract-secret"), ContractFault.NONE);
        assertServesAll(endpoints.reader(), endpoints);
        int strangers = endpoints.unadmittedQueuePairs();
        assumeTrue(strangers >= 0, route() + " opens no queue pairs");
        assertEquals(0, strangers, "queue pairs the serving NIC accepted without an admission");
        assertServesAll(endpoints.reader(), endpoints);
    }

    /**
     * A wrong or missing secret is served nothing (not a block looked up) on this route, the server
     * logs one line for the peer however often it tries, and goes on serving the right secret.
     */
    @Test
    void aWrongOrMissingSecretIsServedNothingAndLoggedOnce()
            throws Exception
    {
        ContractEndpoints endpoints = endpoints(Optional.of("contract-secret"), ContractFault.NONE);
        for (int attempt = 0; attempt < 3; attempt++) {
            try (ShuffleTransport wrong = endpoints.reader(Optional.of("guess-" + attempt)); ShuffleTransport none = endpoints.reader(Optional.empty())) {
                assertThrows(IOException.class, () -> wrong.fetch(endpoints.peer(), List.of(ContractBlocks.SMALL), allocator));
                assertThrows(IOException.class, () -> none.fetch(endpoints.peer(), List.of(ContractBlocks.SMALL), allocator));
            }
        }
        assertEquals(0, endpoints.blocksOpened(), "no block was looked up for a peer that did not authenticate");
        assertEquals(1, endpoints.failuresLogged(), "six failures of one peer host make one log line");
        assertServesAll(endpoints.reader(), endpoints);
        assertTrue(endpoints.blocksOpened() > 0);
    }

    /**
     * Hostile first bytes from a stranger (a 700 MiB handshake frame, a negative length, a request
     * before authentication, a huge request, garbage) close that connection without an answer and
     * without an allocation beyond a few KiB; the server stays up, serves nothing, and then serves
     * an honest reader. With authentication on and off.
     */
    @Test
    void hostileFramesAreRefusedBeforeAllocationAndServeNothing()
            throws Exception
    {
        for (Optional<String> secret : List.of(Optional.of("contract-secret"), Optional.<String>empty())) {
            ContractEndpoints endpoints = endpoints(secret, ContractFault.NONE);
            List<byte[]> hostile = new ArrayList<>(List.of(
                    frameHeader(700 << 20, 12),
                    frameHeader(-1, 12),
                    frameHeader(Integer.MAX_VALUE, 1),
                    frameHeader(1 << 30, 2),
                    frameHeader(64, 99),
                    new java.util.Random(7).ints(256, 0, 256).collect(java.io.ByteArrayOutputStream::new, java.io.ByteArrayOutputStream::write, (a, b) -> {}).toByteArray()));
            if (secret.isPresent()) {
                // A well-formed request, sent before authenticating.
                hostile.add(fetchRequestFrame());
            }
            else {
                hostile.add(frameHeader(100, 12));
            }
            for (byte[] prefix : hostile) {
                assertEquals(0, sendAndReadAnswer(endpoints, prefix), "the server answered hostile bytes " + java.util.HexFormat.of().formatHex(prefix, 0, Math.min(8, prefix.length)));
            }
            assertEquals(0, endpoints.blocksOpened(), "hostile peers had no block looked up");
            assertServesAll(endpoints.reader(), endpoints);
        }
    }

    private static byte[] frameHeader(int length, int type)
    {
        return java.nio.ByteBuffer.allocate(5).putInt(length).put((byte) type).array();
    }

    private static byte[] fetchRequestFrame()
    {
        ShuffleBlockRef block = ContractBlocks.SMALL;
        java.nio.ByteBuffer frame = java.nio.ByteBuffer.allocate(4 + 1 + 8 + 1 + 4 + 4 + 12);
        frame.putInt(1 + 8 + 1 + 4 + 4 + 12).put(dev.ferry.shuffle.transport.wire.MessageType.FETCH_REQUEST.id()).putLong(1).put(dev.ferry.shuffle.transport.wire.FetchRoute.INLINE.id())
                .putInt(block.shuffleId()).putInt(1).putLong(block.mapId()).putInt(block.reduceId());
        return frame.array();
    }

    /** Bytes the server sent back before closing the connection (it must close within the test's timeout). */
    private static int sendAndReadAnswer(ContractEndpoints endpoints, byte[] prefix)
            throws IOException
    {
        try (java.net.Socket socket = new java.net.Socket()) {
            socket.connect(new java.net.InetSocketAddress(endpoints.peer().host(), endpoints.peer().port()), 10_000);
            socket.setSoTimeout(20_000);
            socket.getOutputStream().write(prefix);
            socket.getOutputStream().flush();
            int answered = 0;
            byte[] buffer = new byte[4096];
            try {
                for (int read = socket.getInputStream().read(buffer); read >= 0; read = socket.getInputStream().read(buffer)) {
                    answered += read;
                }
            }
            catch (java.net.SocketException reset) {
                // The server closed with our bytes unread: a reset is a refusal too.
            }
            return answered;
        }
    }

    /**
     * With {@code spark.network.crypto.enabled} and {@code spark.io.encryption.enabled}, every block
     * of every family arrives intact over the encrypted stream (routes whose bytes would leave it
     * are not used: the route reported is TCP), and the bytes the sockets carried hold no 16-byte
     * run of any block. The same capture without encryption finds them (the check can fail).
     */
    @Test
    void encryptedStreamsCarryNoPlaintextOfTheBlocks()
            throws Exception
    {
        Map<ShuffleBlockRef, byte[]> expected = ContractBlocks.all(servesEmptyBlocks());
        List<ShuffleBlockRef> refs = new ArrayList<>(expected.keySet());
        ContractEndpoints encrypted = endpoints(ContractSecurity.encrypted("contract-secret"), ContractFault.CAPTURE);
        long blockBytes = 0;
        try (FetchedBlocks fetched = encrypted.reader().fetch(encrypted.peer(), refs, allocator)) {
            for (int i = 0; i < refs.size(); i++) {
                assertEquals(Route.TCP.name(), fetched.routeOf(i), refs.get(i) + ": the encrypted stream carried it");
                assertArrayEquals(expected.get(refs.get(i)), bytes(fetched, i), refs.get(i) + " encrypted");
                blockBytes += expected.get(refs.get(i)).length;
            }
        }
        byte[] wire = encrypted.captured();
        assertTrue(wire.length > blockBytes, "the blocks crossed the sockets (" + wire.length + " bytes for " + blockBytes + " of blocks)");
        for (ShuffleBlockRef ref : refs) {
            for (byte[] run : runs(expected.get(ref))) {
                assertEquals(-1, TestBytes.indexOf(wire, run), "plaintext of " + ref + " on the wire");
            }
        }
        if (route() == Route.TCP) {
            ContractEndpoints plain = endpoints(Optional.of("contract-secret"), ContractFault.CAPTURE);
            try (FetchedBlocks fetched = plain.reader().fetch(plain.peer(), List.of(ContractBlocks.SMALL), allocator)) {
                assertEquals(1, fetched.blocks().size());
            }
            assertTrue(TestBytes.indexOf(plain.captured(), runs(expected.get(ContractBlocks.SMALL)).get(0)) >= 0, "without encryption the capture sees the block");
        }
    }

    /** 16-byte runs at the start, middle and end of a block (none for blocks shorter than that). */
    private static List<byte[]> runs(byte[] block)
    {
        List<byte[]> runs = new ArrayList<>();
        if (block.length >= 16) {
            for (int at : new int[] {0, block.length / 2, block.length - 16}) {
                runs.add(java.util.Arrays.copyOfRange(block, at, at + 16));
            }
        }
        return runs;
    }

    @Test
    void concurrentFetchesAllSucceed()
            throws Exception
    {
        ContractEndpoints endpoints = endpoints(Optional.empty(), ContractFault.NONE);
        ExecutorService threads = Executors.newFixedThreadPool(6);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                futures.add(threads.submit(() -> {
                    assertServesAll(endpoints.reader(), endpoints);
                    return null;
                }));
            }
            for (Future<?> future : futures) {
                future.get(120, TimeUnit.SECONDS);
            }
        }
        finally {
            threads.shutdownNow();
        }
    }

    @Test
    void sequentialFetchesReuseOneConnection()
            throws Exception
    {
        ContractEndpoints endpoints = endpoints(Optional.empty(), ContractFault.NONE);
        for (int i = 0; i < 4; i++) {
            assertServesAll(endpoints.reader(), endpoints);
        }
        assertEquals(1, endpoints.connectionsAccepted(), "four fetches in a row went over one pooled connection");
    }

    @Test
    void closeReleasesEverything()
            throws Exception
    {
        ContractEndpoints endpoints = endpoints(Optional.empty(), ContractFault.NONE);
        assertServesAll(endpoints.reader(), endpoints);
        endpoints.close();
        endpoints.assertReleased();
        IOException closed = assertThrows(IOException.class, () -> endpoints.reader().fetch(endpoints.peer(), List.of(ContractBlocks.SMALL), allocator));
        assertNotNull(closed.getMessage());
    }

    private void assumeInjectable(ContractFault fault)
    {
        assumeTrue(injectableFaults().contains(fault), route() + " cannot have " + fault + " injected (see the subclass)");
    }

    /**
     * A fault on a two-block fetch: an IOException naming the peer and attributed to the block it hit
     * (named in the message too), so Spark's FetchFailedException gets that block's map id.
     */
    private IOException assertFailsNamingPeerAndBlock(ContractFault fault)
            throws Exception
    {
        assumeInjectable(fault);
        ContractEndpoints endpoints = endpoints(Optional.empty(), fault);
        List<ShuffleBlockRef> request = List.of(ContractBlocks.SMALL, ContractBlocks.CHECKED);
        IOException failure = assertThrows(IOException.class, () -> endpoints.reader().fetch(endpoints.peer(), request, allocator), fault + " must fail the fetch");
        assertTrue(failure.getMessage().contains(endpoints.peer().toString()), failure.getMessage());
        Optional<ShuffleBlockRef> failed = BlockFetchException.blockOf(failure);
        assertTrue(failed.isPresent() && request.contains(failed.get()), "the failure names no block of the request: " + failure);
        assertTrue(failure.getMessage().contains(failed.get().toString()), failure.getMessage());
        return failure;
    }

    @Test
    void peerDyingMidTransferFailsTheFetch()
            throws Exception
    {
        assertFailsNamingPeerAndBlock(ContractFault.PEER_DIES);
    }

    @Test
    void transferCutShortFailsTheFetchNamingTheOffset()
            throws Exception
    {
        IOException failure = assertFailsNamingPeerAndBlock(ContractFault.CUT_SHORT);
        assertTrue(failure.getMessage().contains("offset") || failure.getMessage().contains("cut short"), failure.getMessage());
    }

    @Test
    void staleRegionKeyFailsTheFetchNamingTheOffset()
            throws Exception
    {
        IOException failure = assertFailsNamingPeerAndBlock(ContractFault.STALE_KEY);
        assertTrue(failure.getMessage().contains("REM_ACCESS_ERR") && failure.getMessage().contains("offset"), failure.getMessage());
    }

    @Test
    void flippedByteIsNeverAcceptedAsTheBlock()
            throws Exception
    {
        assumeInjectable(ContractFault.FLIP_BYTE);
        ContractEndpoints endpoints = endpoints(Optional.empty(), ContractFault.FLIP_BYTE);
        byte[] original = ContractBlocks.all(false).get(ContractBlocks.CHECKED);
        byte[] received;
        // No Ferry transport checksums blocks on the wire (the block carries its own checksum, which
        // the reader verifies before decoding): the spoiled bytes must arrive, and be refused there.
        try (FetchedBlocks fetched = endpoints.reader().fetch(endpoints.peer(), List.of(ContractBlocks.CHECKED), allocator)) {
            received = bytes(fetched, 0);
        }
        assertEquals(original.length, received.length);
        assertTrue(!java.util.Arrays.equals(original, received), "the fault hook flipped a byte of this fetch");
        // One-sided READs carry no end-to-end checksum: the reader's block checksum must refuse it
        // (which the shuffle reader turns into a FetchFailedException, so the map stage reruns).
        try {
            ContractBlocks.verify(received);
            fail("a block with a flipped byte passed the reader's checksum");
        }
        catch (CorruptBlockException expected) {
            assertNotNull(expected.getMessage());
        }
        ContractBlocks.verify(original);
    }
}
