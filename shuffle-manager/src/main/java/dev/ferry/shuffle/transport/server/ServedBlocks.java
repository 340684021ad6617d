package dev.ferry.shuffle.transport.server;

import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import dev.ferry.device.pool.BlockLease;
import dev.ferry.shuffle.store.BlockBytes;
import dev.ferry.shuffle.transport.BlockSource;
import dev.ferry.shuffle.transport.DeviceBlockSource;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.wire.FetchFailure;
import dev.ferry.shuffle.transport.wire.FetchRequest;
import dev.ferry.shuffle.transport.wire.FrameWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.util.Objects.requireNonNull;

/**
 * The blocks a server serves, as every route handler looks them up: from the map output store
 * ({@link BlockSource}) and, where map outputs stay in GPU memory, borrowed from the device store;
 * each look-up counted (a peer that did not authenticate causes none).
 */
public final class ServedBlocks
{
    private static final Logger LOG = LoggerFactory.getLogger(ServedBlocks.class);

    private final BlockSource source;
    private final Optional<DeviceBlockSource> deviceBlocks;
    private final AtomicLong opened = new AtomicLong();
    private final AtomicLong publishedCopies = new AtomicLong();

    public ServedBlocks(BlockSource source, Optional<DeviceBlockSource> deviceBlocks)
    {
        this.source = requireNonNull(source, "source is null");
        this.deviceBlocks = requireNonNull(deviceBlocks, "deviceBlocks is null");
    }

    /** GPU-resident blocks, where this executor keeps map outputs in GPU memory. */
    public Optional<DeviceBlockSource> deviceBlocks()
    {
        return deviceBlocks;
    }

    /** The block in GPU memory, lent; empty where it is not there (spilled, or no device store). */
    public Optional<BlockLease> borrow(ShuffleBlockRef ref)
    {
        if (deviceBlocks.isEmpty()) {
            return Optional.empty();
        }
        try {
            opened.incrementAndGet();
            return deviceBlocks.get().borrow(ref);
        }
        catch (RuntimeException e) {
            LOG.debug("Borrowing {} from the device store: {}", ref, e.getMessage());
            return Optional.empty();
        }
    }

    /** Block {@code index} of {@code request} from the store, or empty after answering the peer with a {@link FetchFailure} that says why. */
    public Optional<BlockBytes> openOrFail(FetchRequest request, int index, FrameWriter writer)
            throws IOException
    {
        Optional<BlockBytes> block;
        try {
            opened.incrementAndGet();
            block = source.open(request.ref(index));
        }
        catch (IOException | RuntimeException e) {
            writer.write(new FetchFailure(request.requestId(), index, "Cannot read " + request.ref(index) + ": " + e.getMessage()));
            return Optional.empty();
        }
        if (block.isEmpty()) {
            writer.write(new FetchFailure(request.requestId(), index, "No map output for " + request.ref(index) + " on this executor"));
        }
        return block;
    }

    /** A HOST_SHM / HOST_STAGED block was copied into a file of its own, because the store did not hold it in shared memory. */
    public void countPublishedCopy()
    {
        publishedCopies.incrementAndGet();
    }

    public long opened()
    {
        return opened.get();
    }

    public long publishedCopies()
    {
        return publishedCopies.get();
    }
}
