package dev.ferry.shuffle.transport.server;

import dev.ferry.shuffle.transport.rdma.VerbsBlocks;

import java.util.ArrayList;
import java.util.List;

import dev.ferry.device.pool.BlockLease;
import dev.ferry.shuffle.store.BlockBytes;
import dev.ferry.shuffle.transport.shm.ShmBlockHandle;
import dev.ferry.shuffle.transport.shm.ShmBlockWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one connection of the block server holds for its peer's last request, until the peer says
 * it has the blocks (its {@code FetchDone} or next request) or the connection closes: shared-memory
 * files published for it, store blocks whose shared memory it reads, NIC registrations, lent device
 * buffers. One owner, released together. Not thread-safe (a connection is served by one thread).
 */
final class HeldBlocks
        implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(HeldBlocks.class);

    private final ShmBlockWriter shmWriter;
    private final List<ShmBlockHandle> published = new ArrayList<>();
    private final List<BlockBytes> shared = new ArrayList<>();
    private final List<VerbsBlocks.Exported> exported = new ArrayList<>();
    private final List<BlockLease> lent = new ArrayList<>();

    /** {@code shmWriter}: where published handles are released (null when this server publishes none). */
    HeldBlocks(ShmBlockWriter shmWriter)
    {
        this.shmWriter = shmWriter;
    }

    void published(ShmBlockHandle handle)
    {
        published.add(handle);
    }

    void shared(BlockBytes block)
    {
        shared.add(block);
    }

    void exported(VerbsBlocks.Exported export)
    {
        exported.add(export);
    }

    void lent(BlockLease lease)
    {
        lent.add(lease);
    }

    /** Lets go of everything held; the connection may go on holding more for the next request. */
    void releaseAll()
    {
        for (ShmBlockHandle handle : published) {
            try {
                shmWriter.release(handle);
            }
            catch (RuntimeException e) {
                LOG.debug("Releasing shared-memory block {}: {}", handle.fileName(), e.getMessage());
            }
        }
        published.clear();
        shared.forEach(BlockBytes::close);
        shared.clear();
        exported.forEach(VerbsBlocks.Exported::close);
        exported.clear();
        lent.forEach(BlockLease::close);
        lent.clear();
    }

    @Override
    public void close()
    {
        releaseAll();
    }
}
