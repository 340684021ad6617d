package dev.ferry.shuffle.transport.contract;

import java.util.Optional;

import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.ShuffleTransport;

/**
 * One serving peer with {@link ContractBlocks} and one reader, wired over a transport family's
 * route. Closing releases both sides; {@link #assertReleased} then checks that nothing is left.
 */
public interface ContractEndpoints
        extends AutoCloseable
{
    /** The serving peer as the reader addresses it. */
    PeerAddress peer();

    /** The reader, authenticated with the secret the endpoints were started with (if any). */
    ShuffleTransport reader();

    /** Another reader of the same family, with {@code secret} (empty: authentication off); closed by the caller. */
    ShuffleTransport reader(Optional<String> secret)
            throws Exception;

    /** Control connections the serving peer accepted so far. */
    int connectionsAccepted()
            throws Exception;

    /** Blocks the serving peer looked up for its peers so far (opened or borrowed): none for a peer that did not authenticate. */
    long blocksOpened()
            throws Exception;

    /** Lines the serving peer logged about failed handshakes and protocol violations (throttled per peer host). */
    long failuresLogged()
            throws Exception;

    /** With {@link ContractFault#CAPTURE}: every byte the reader's and server's sockets carried between them so far. */
    byte[] captured();

    /**
     * Reads just past the end of a served block with this family's data-path primitive (a frame
     * length beyond the limit, a shared-memory slice beyond the file, a READ beyond the region):
     * returns the exception the primitive raised, or null if it read the bytes.
     */
    Exception readOutOfBounds()
            throws Exception;

    /**
     * Where this route has a NIC: a stranger's connect requests to the serving NIC without an
     * admission from the authenticated stream (no token, a forged one, one already used): how many
     * got a queue pair, which must be none. -1 where the route has no NIC.
     */
    default int unadmittedQueuePairs()
            throws Exception
    {
        return -1;
    }

    @Override
    void close();

    /** After {@link #close}: every buffer, registration, shared-memory file and device buffer is released (leak reports fail). */
    void assertReleased()
            throws Exception;
}
