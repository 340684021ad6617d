package dev.ferry.shuffle.transport.server;

import java.util.ArrayList;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one connection of the block server holds for its peer's last request, until the peer says
 * it has the blocks (its {@code FetchDone} or next request) or the connection closes: shared-memory
 * files published for it, store blocks whose shared memory it reads, NIC registrations, lent device
 * buffers. Each route's handler hands what it holds here as one {@link AutoCloseable}; one owner,
 * released together, in the order taken. Not thread-safe (a connection is served by one thread).
 */
public final class HeldBlocks
        implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(HeldBlocks.class);

    private final List<AutoCloseable> held = new ArrayList<>();

    /** Holds {@code resource} until the peer's next request or the connection's close. */
    public void hold(AutoCloseable resource)
    {
        held.add(resource);
    }

    /** Resources held now. */
    public int size()
    {
        return held.size();
    }

    /** Lets go of everything held; the connection may go on holding more for the next request. */
    public void releaseAll()
    {
        for (AutoCloseable resource : held) {
            try {
                resource.close();
            }
            catch (Exception e) {
                // The peer has the block already; a release that fails leaks at most until the store's own cleanup.
                LOG.debug("Releasing a block held for a peer: {}", e.getMessage());
            }
        }
        held.clear();
    }

    @Override
    public void close()
    {
        releaseAll();
    }
}
