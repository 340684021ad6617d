package dev.ferry.device.pool;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.conf.ConfigSource;
import dev.ferry.device.DeviceConfigKeys;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceStream;
import dev.ferry.device.memory.DeviceBuffer;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

import static java.util.Objects.requireNonNull;

/**
 * Shuffle output kept as close to the GPU as memory allows: blocks start in device memory (from
 * the {@link DeviceMemoryPool}); under pressure the oldest move to host memory (up to a limit) and
 * from there to local disk files. Reads come from whichever tier holds the block. Blocks are
 * released when their task, stage or shuffle ends.
 *
 * <p>A block changes tier only after its copy in the lower tier is complete, so a failed spill
 * (a full disk) leaves every block where it was, intact. Thread-safe.
 */
public final class TieredShuffleStore
        implements SpillCallback, AutoCloseable
{
    private final DeviceRuntime runtime;
    private final int device;
    private final DeviceMemoryPool pool;
    private final long hostLimit;
    private final SpillFileStore disk;
    private final Map<StoredBlock, Entry> entries = new LinkedHashMap<>();
    private long deviceBytes;
    private long hostBytes;
    private long diskBytes;
    private long spillsToHost;
    private long spillsToDisk;
    private long spillNanos;
    private boolean closed;

    public TieredShuffleStore(DeviceRuntime runtime, int device, DeviceMemoryPool pool, long hostLimit, SpillFileStore disk)
    {
        this.runtime = requireNonNull(runtime, "runtime is null");
        this.device = device;
        this.pool = requireNonNull(pool, "pool is null");
        if (hostLimit < 0) {
            throw new IllegalArgumentException("hostLimit must not be negative: " + hostLimit);
        }
        this.hostLimit = hostLimit;
        this.disk = requireNonNull(disk, "disk is null");
        pool.addSpillCallback(this);
    }

    /**
     * The store the {@code spark.ferry.device.pool.*} keys describe: host tier limit, spill directory
     * (java.io.tmpdir when empty) and its byte limit.
     */
    public static TieredShuffleStore create(DeviceRuntime runtime, int device, DeviceMemoryPool pool, ConfigSource config)
    {
        String directory = DeviceConfigKeys.SPILL_DIR.get(config);
        Path spillDirectory = directory.isBlank() ? Paths.get(System.getProperty("java.io.tmpdir"), "ferry-spill-" + ProcessHandle.current().pid()) : Paths.get(directory);
        return new TieredShuffleStore(runtime, device, pool, DeviceConfigKeys.HOST_TIER_LIMIT.get(config),
                new LocalSpillDirectory(spillDirectory, DeviceConfigKeys.SPILL_DIR_LIMIT.get(config)));
    }

    @Override
    public String name()
    {
        return "tiered-shuffle-store-device-" + device;
    }

    /** Stores a copy of {@code data}'s remaining bytes in device memory, spilling others if needed. */
    public void put(StoredBlock block, ByteBuffer data)
    {
        requireNonNull(block, "block is null");
        requireNonNull(data, "data is null");
        if (!data.hasRemaining()) {
            throw new IllegalArgumentException("Block " + block + " is empty");
        }
        checkNew(block);
        // Allocate outside the lock: allocation may spill, which takes the lock, or wait for another thread's release.
        DeviceBuffer buffer = pool.allocate(data.remaining());
        boolean stored = false;
        try {
            try (DeviceStream stream = runtime.newStream(device)) {
                stream.copyFromHost(data.duplicate(), buffer, 0);
            }
            addOnDevice(block, buffer);
            stored = true;
        }
        finally {
            if (!stored) {
                buffer.close();
            }
        }
    }

    /**
     * Stores {@code buffer} itself as the block, without a copy: for producers whose output is
     * already in device memory (device batches repartitioned on the GPU). The buffer must be an
     * allocation of this store's pool on its device (so it is counted against the pool's limit and
     * can be spilled like any other block); the store owns it from here, also when this throws.
     */
    public void putOnDevice(StoredBlock block, DeviceBuffer buffer)
    {
        requireNonNull(block, "block is null");
        requireNonNull(buffer, "buffer is null");
        boolean stored = false;
        try {
            if (buffer.length() == 0) {
                throw new IllegalArgumentException("Block " + block + " is empty");
            }
            if (buffer.allocator() != pool.allocator()) {
                throw new IllegalArgumentException("Block " + block + " is " + buffer.name() + ", not an allocation of this store's pool on device " + device);
            }
            addOnDevice(block, buffer);
            stored = true;
        }
        finally {
            if (!stored) {
                buffer.close();
            }
        }
    }

    /** Takes {@code buffer} as {@code block}'s device copy, counted in the device tier; refused when the block is already stored. */
    private synchronized void addOnDevice(StoredBlock block, DeviceBuffer buffer)
    {
        checkNew(block);
        entries.put(block, Entry.onDevice(block, buffer));
        deviceBytes += buffer.length();
    }

    private synchronized void checkNew(StoredBlock block)
    {
        checkOpen();
        if (entries.containsKey(block)) {
            throw new IllegalArgumentException("Block " + block + " is already stored");
        }
    }

    /**
     * The block's bytes, from whichever tier holds it. A device block is copied out under a lease
     * taken with the store's lock, not under the lock itself: the copy to host memory is the slow
     * part, and holding the store-wide lock across it serialized every reader and writer of the
     * executor. The lease keeps the block from being spilled or freed meanwhile.
     */
    public ByteBuffer read(StoredBlock block)
    {
        BlockLease lease;
        synchronized (this) {
            Entry entry = entry(block);
            switch (entry.tier) {
                case DEVICE:
                    lease = tryBorrow(block).orElseThrow();
                    break;
                case HOST: {
                    ByteBuffer copy = ByteBuffer.allocate(Math.toIntExact(entry.length));
                    copy.put(entry.host.duplicate().clear());
                    return copy.flip();
                }
                case DISK:
                    return disk.read(entry.file, entry.length);
                default:
                    throw new IllegalStateException("Unhandled tier " + entry.tier);
            }
        }
        try (BlockLease held = lease; DeviceStream stream = runtime.newStream(device)) {
            ByteBuffer copy = ByteBuffer.allocate(Math.toIntExact(held.length()));
            stream.copyToHost(held.buffer(), 0, copy);
            return copy.flip();
        }
    }

    /** The block reloaded into a new device buffer from the pool; the caller owns it. */
    public DeviceBuffer readToDevice(StoredBlock block)
    {
        ByteBuffer bytes = read(block);
        DeviceBuffer buffer = pool.allocate(bytes.remaining());
        boolean success = false;
        try (DeviceStream stream = runtime.newStream(device)) {
            stream.copyFromHost(bytes, buffer, 0);
            success = true;
            return buffer;
        }
        finally {
            if (!success) {
                buffer.close();
            }
        }
    }

    /**
     * Lends the block's device buffer without copying it, or empty when the block is no longer on
     * the device (spilled to host memory or disk): read those through {@link #read}. While the lease
     * is open the block is not spilled.
     */
    public synchronized Optional<BlockLease> tryBorrow(StoredBlock block)
    {
        Entry entry = entry(block);
        if (entry.tier != StorageTier.DEVICE) {
            return Optional.empty();
        }
        DeviceBuffer retained = entry.device.retain();
        entry.leases++;
        return Optional.of(new BlockLease(block, retained, () -> returnLease(entry)));
    }

    /** As {@link #tryBorrow}, but a block that is not on the device is an error that says where it is. */
    public BlockLease borrow(StoredBlock block)
    {
        Optional<BlockLease> lease = tryBorrow(block);
        if (lease.isEmpty()) {
            throw new FerryException(ErrorCategory.INTERNAL_ERROR, "Cannot borrow " + block + " from " + name()
                    + ": it was spilled to the " + tierOf(block) + " tier; read it through host memory");
        }
        return lease.get();
    }

    private synchronized void returnLease(Entry entry)
    {
        entry.leases--;
    }

    /** How many leases on the block are open. */
    public synchronized int leasesOf(StoredBlock block)
    {
        return entry(block).leases;
    }

    public synchronized StorageTier tierOf(StoredBlock block)
    {
        return entry(block).tier;
    }

    @Override
    public synchronized long spill(long bytesWanted)
    {
        long start = System.nanoTime();
        long freed = 0;
        try {
            List<Entry> onDevice = new ArrayList<>();
            for (Entry entry : entries.values()) {
                // A borrowed block stays where it is until its leases close.
                if (entry.tier == StorageTier.DEVICE && entry.leases == 0) {
                    onDevice.add(entry);
                }
            }
            for (Entry entry : onDevice) {
                if (freed >= bytesWanted) {
                    break;
                }
                moveOffDevice(entry);
                freed += entry.length;
            }
            return freed;
        }
        finally {
            spillNanos += System.nanoTime() - start;
        }
    }

    private void moveOffDevice(Entry entry)
    {
        ByteBuffer copy = ByteBuffer.allocateDirect(Math.toIntExact(entry.length));
        try (DeviceStream stream = runtime.newStream(device)) {
            stream.copyToHost(entry.device, 0, copy);
        }
        copy.flip();
        if (entry.length <= hostLimit) {
            makeHostRoom(entry.length);
            entry.host = copy;
            entry.tier = StorageTier.HOST;
            hostBytes += entry.length;
            spillsToHost++;
        }
        else {
            entry.file = disk.write(spillFileName(entry.block), copy);
            entry.tier = StorageTier.DISK;
            diskBytes += entry.length;
            spillsToDisk++;
        }
        deviceBytes -= entry.length;
        DeviceBuffer buffer = entry.device;
        entry.device = null;
        buffer.close();
    }

    private void makeHostRoom(long length)
    {
        for (Iterator<Entry> iterator = entries.values().iterator(); iterator.hasNext() && hostBytes + length > hostLimit; ) {
            Entry entry = iterator.next();
            if (entry.tier != StorageTier.HOST) {
                continue;
            }
            entry.file = disk.write(spillFileName(entry.block), entry.host.duplicate().clear());
            entry.tier = StorageTier.DISK;
            entry.host = null;
            hostBytes -= entry.length;
            diskBytes += entry.length;
            spillsToDisk++;
        }
    }

    private static String spillFileName(StoredBlock block)
    {
        return "ferry-spill-" + block.shuffleId() + "-" + block.mapId() + "-" + block.reduceId() + "-" + block.taskAttemptId() + "-" + System.nanoTime() + ".data";
    }

    /** Releases every block of a finished task attempt; returns how many. */
    public int releaseTask(long taskAttemptId)
    {
        return release(block -> block.taskAttemptId() == taskAttemptId);
    }

    public int releaseStage(int stageId)
    {
        return release(block -> block.stageId() == stageId);
    }

    public int releaseShuffle(int shuffleId)
    {
        return release(block -> block.shuffleId() == shuffleId);
    }

    private synchronized int release(Predicate<StoredBlock> matches)
    {
        int released = 0;
        List<RuntimeException> failures = new ArrayList<>();
        for (Iterator<Entry> iterator = entries.values().iterator(); iterator.hasNext(); ) {
            Entry entry = iterator.next();
            if (!matches.test(entry.block)) {
                continue;
            }
            iterator.remove();
            released++;
            try {
                free(entry);
            }
            catch (RuntimeException e) {
                failures.add(e);
            }
        }
        if (!failures.isEmpty()) {
            FerryException failure = new FerryException(ErrorCategory.EXTERNAL, "Releasing " + released + " stored blocks failed for " + failures.size() + " of them: " + failures.get(0).getMessage());
            failures.forEach(failure::addSuppressed);
            throw failure;
        }
        return released;
    }

    private void free(Entry entry)
    {
        switch (entry.tier) {
            case DEVICE:
                deviceBytes -= entry.length;
                entry.device.close();
                return;
            case HOST:
                hostBytes -= entry.length;
                entry.host = null;
                return;
            case DISK:
                diskBytes -= entry.length;
                disk.delete(entry.file);
                return;
        }
        throw new IllegalStateException("Unhandled tier " + entry.tier);
    }

    public synchronized TierMetrics metrics()
    {
        return new TierMetrics(entries.size(), deviceBytes, hostBytes, diskBytes, spillsToHost, spillsToDisk, spillNanos);
    }

    private Entry entry(StoredBlock block)
    {
        checkOpen();
        Entry entry = entries.get(requireNonNull(block, "block is null"));
        if (entry == null) {
            throw new FerryException(ErrorCategory.INTERNAL_ERROR, "No stored block " + block);
        }
        return entry;
    }

    private void checkOpen()
    {
        if (closed) {
            throw new IllegalStateException(name() + " is closed");
        }
    }

    /** Releases every block and leaves the pool. Idempotent. */
    @Override
    public void close()
    {
        synchronized (this) {
            if (closed) {
                return;
            }
            release(block -> true);
            closed = true;
        }
        pool.removeSpillCallback(this);
    }

    private static final class Entry
    {
        private final StoredBlock block;
        private final long length;
        private StorageTier tier;
        private DeviceBuffer device;
        private ByteBuffer host;
        private Path file;
        private int leases;

        private Entry(StoredBlock block, long length)
        {
            this.block = block;
            this.length = length;
        }

        static Entry onDevice(StoredBlock block, DeviceBuffer buffer)
        {
            Entry entry = new Entry(block, buffer.length());
            entry.tier = StorageTier.DEVICE;
            entry.device = buffer;
            return entry;
        }
    }
}
