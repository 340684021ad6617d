package dev.ferry.shuffle;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;

import dev.ferry.conf.ConfigSource;
import dev.ferry.shuffle.store.MapOutputStore;
import dev.ferry.shuffle.store.MapOutputStores;
import dev.ferry.shuffle.transport.BlockServer;
import dev.ferry.shuffle.transport.ShuffleTransport;
import dev.ferry.shuffle.transport.tcp.TcpBlockServer;
import dev.ferry.shuffle.transport.tcp.TcpShuffleTransport;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.spark.SparkEnv;
import org.apache.spark.sql.util.ArrowUtils;
import org.apache.spark.storage.BlockManager;
import org.apache.spark.storage.BlockManagerId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.util.Objects.requireNonNull;

/**
 * What one executor needs for Ferry shuffles: its map output store, the block server other
 * executors fetch from, and the client transport. Built on first use (SparkEnv is not ready when
 * the shuffle manager is constructed) and closed when the manager stops.
 */
public final class FerryShuffleRuntime
        implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(FerryShuffleRuntime.class);

    private final String executorId;
    private final BlockManagerId location;
    private final BufferAllocator allocator;
    private final MapOutputStore store;
    private final ShuffleTransport transport;
    private final BlockServer server;
    private final Path localDirectory;
    private final long maxBytesInFlight;

    private FerryShuffleRuntime(String executorId, BlockManagerId location, BufferAllocator allocator, MapOutputStore store, ShuffleTransport transport, BlockServer server,
            Path localDirectory, long maxBytesInFlight)
    {
        this.executorId = requireNonNull(executorId, "executorId is null");
        this.location = requireNonNull(location, "location is null");
        this.allocator = requireNonNull(allocator, "allocator is null");
        this.store = requireNonNull(store, "store is null");
        this.transport = requireNonNull(transport, "transport is null");
        this.server = requireNonNull(server, "server is null");
        this.localDirectory = requireNonNull(localDirectory, "localDirectory is null");
        this.maxBytesInFlight = maxBytesInFlight;
    }

    /** Builds the runtime of the executor this JVM runs, from SparkEnv. */
    public static FerryShuffleRuntime start(ConfigSource config)
    {
        SparkEnv env = SparkEnv.get();
        BlockManager blockManager = env.blockManager();
        Path localDirectory = localDirectory(blockManager, env.executorId());
        BufferAllocator allocator = ArrowUtils.rootAllocator().newChildAllocator("ferry-shuffle-" + env.executorId(), 0, Long.MAX_VALUE);
        MapOutputStore store = null;
        ShuffleTransport transport = null;
        try {
            store = MapOutputStores.create(config, allocator, localDirectory);
            transport = new TcpShuffleTransport(ShuffleConfigKeys.TCP_TIMEOUT_MILLIS.get(config), ShuffleConfigKeys.TCP_MAX_FRAME_BYTES.get(config));
            MapOutputStore served = store;
            BlockServer server = new TcpBlockServer(block -> served.open(block.shuffleId(), block.mapId(), block.reduceId()), null,
                    ShuffleConfigKeys.TCP_PORT.get(config), ShuffleConfigKeys.TCP_MAX_FRAME_BYTES.get(config));
            BlockManagerId location = PeerEndpoints.withTcpPort(blockManager.shuffleServerId(), server.port());
            LOG.info("Ferry shuffle on executor {}: {} store, TCP block server on port {}", env.executorId(), store.name(), server.port());
            return new FerryShuffleRuntime(env.executorId(), location, allocator, store, transport, server, localDirectory,
                    ShuffleConfigKeys.MAX_BYTES_IN_FLIGHT.get(config));
        }
        catch (IOException e) {
            closeAll(store, transport, allocator);
            throw new UncheckedIOException("Cannot start Ferry's TCP block server: " + e.getMessage(), e);
        }
        catch (RuntimeException e) {
            closeAll(store, transport, allocator);
            throw e;
        }
    }

    private static void closeAll(MapOutputStore store, ShuffleTransport transport, BufferAllocator allocator)
    {
        if (store != null) {
            store.close();
        }
        if (transport != null) {
            transport.close();
        }
        allocator.close();
    }

    private static Path localDirectory(BlockManager blockManager, String executorId)
    {
        try {
            File[] dirs = blockManager.diskBlockManager().localDirs();
            Path base = dirs.length > 0 ? dirs[0].toPath() : Files.createTempDirectory("ferry-shuffle");
            return base.resolve("ferry-" + executorId);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String executorId()
    {
        return executorId;
    }

    /** The MapStatus location of this executor's Ferry map outputs. */
    public BlockManagerId location()
    {
        return location;
    }

    public BufferAllocator allocator()
    {
        return allocator;
    }

    public MapOutputStore store()
    {
        return store;
    }

    public ShuffleTransport transport()
    {
        return transport;
    }

    public long maxBytesInFlight()
    {
        return maxBytesInFlight;
    }

    public Optional<Path> localDirectory()
    {
        return Optional.of(localDirectory);
    }

    @Override
    public void close()
    {
        try {
            server.close();
        }
        finally {
            try {
                transport.close();
            }
            finally {
                try {
                    store.close();
                }
                finally {
                    try {
                        allocator.close();
                    }
                    catch (IllegalStateException e) {
                        LOG.warn("Ferry shuffle memory still referenced at executor stop: {}", e.getMessage());
                    }
                    deleteQuietly(localDirectory);
                }
            }
        }
    }

    private static void deleteQuietly(Path directory)
    {
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
        catch (IOException e) {
            LOG.debug("Cannot delete {}: {}", directory, e.getMessage());
        }
    }
}
