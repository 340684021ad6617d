package dev.ferry.shuffle.transport;

import java.io.IOException;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A fetch that failed at one block of its request (a block the peer could not serve, a READ that
 * failed, a transfer cut short inside it), so the reader can raise Spark's FetchFailedException
 * with that block's map and reduce ids rather than the request's first. {@link #block()} is empty
 * when the failure is not one block's (the connection could not be made, authentication failed).
 */
public class BlockFetchException
        extends IOException
{
    private final PeerAddress peer;
    private final transient Optional<ShuffleBlockRef> block;

    public BlockFetchException(PeerAddress peer, Optional<ShuffleBlockRef> block, String message, Throwable cause)
    {
        super(message, cause);
        this.peer = requireNonNull(peer, "peer is null");
        this.block = requireNonNull(block, "block is null");
    }

    public PeerAddress peer()
    {
        return peer;
    }

    /** The block the fetch failed at, if the failure is one block's. */
    public Optional<ShuffleBlockRef> block()
    {
        return block;
    }

    /** The block {@code failure} (or a cause of it) names, if any. */
    public static Optional<ShuffleBlockRef> blockOf(Throwable failure)
    {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof BlockFetchException fetch && fetch.block().isPresent()) {
                return fetch.block();
            }
        }
        return Optional.empty();
    }
}
