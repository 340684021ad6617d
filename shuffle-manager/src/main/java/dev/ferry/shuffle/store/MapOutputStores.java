package dev.ferry.shuffle.store;

import java.nio.file.Path;
import java.util.Optional;

import dev.ferry.conf.ConfigSource;
import dev.ferry.device.DeviceConfigKeys;
import dev.ferry.device.DeviceMatch;
import dev.ferry.device.ExecutorGpu;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceRuntimes;
import dev.ferry.device.host.HostBackend;
import dev.ferry.device.pool.DeviceMemoryPool;
import dev.ferry.device.pool.LocalSpillDirectory;
import dev.ferry.device.pool.TieredShuffleStore;
import dev.ferry.shuffle.FerryFallbacks;
import dev.ferry.shuffle.ShuffleConfigKeys;
import dev.ferry.shuffle.transport.shm.ShmNames;
import org.apache.arrow.memory.BufferAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Builds the store {@code spark.ferry.shuffle.stage} asks for. */
public final class MapOutputStores
{
    private static final Logger LOG = LoggerFactory.getLogger(MapOutputStores.class);

    private MapOutputStores() {}

    /**
     * {@code auto} and {@code host} keep outputs in host memory: Spark's CPU operators produce
     * host batches, and auto keeps a block where its producer's batch is. {@code device} asks the
     * device runtime for its tiered store; when the runtime cannot give one, the host store is
     * used, logged and counted, never a pretend device.
     */
    public static MapOutputStore create(ConfigSource config, BufferAllocator parent, Path localDirectory)
    {
        return create(config, parent, localDirectory, Optional.empty());
    }

    /** As above; {@code sharedMemory}: where the host store keeps in-memory outputs so that same-node peers map them (HOST_SHM). */
    public static MapOutputStore create(ConfigSource config, BufferAllocator parent, Path localDirectory, Optional<Path> sharedMemory)
    {
        ShuffleStage stage = ShuffleConfigKeys.STAGE.get(config);
        switch (stage) {
            case AUTO:
            case HOST:
                return host(config, parent, localDirectory, sharedMemory);
            case DEVICE:
                try {
                    return device(config, parent, localDirectory);
                }
                catch (RuntimeException | LinkageError e) {
                    FerryFallbacks.record("spark.ferry.shuffle.stage=device uses host memory", "the device runtime is unavailable: " + e);
                    return host(config, parent, localDirectory, sharedMemory);
                }
        }
        throw new IllegalStateException("Unhandled stage " + stage);
    }

    private static MapOutputStore host(ConfigSource config, BufferAllocator parent, Path localDirectory, Optional<Path> sharedMemory)
    {
        // Outputs of executors of this user that died without cleaning up would hold shared memory until reboot.
        sharedMemory.ifPresent(ShmNames::sweepOrphans);
        return new HostMapOutputStore(parent.newChildAllocator("ferry-map-outputs", 0, Long.MAX_VALUE), ShuffleConfigKeys.HOST_MEMORY_BYTES.get(config), localDirectory,
                sharedMemory);
    }

    private static MapOutputStore device(ConfigSource config, BufferAllocator parent, Path localDirectory)
    {
        // One runtime per executor, shared with the gds reader (one memory limit); released by the store's close.
        DeviceRuntime runtime = DeviceRuntimes.shared(config);
        try {
            if (runtime.deviceCount() == 0) {
                throw new IllegalStateException("device backend " + runtime.backendName() + " has no device (" + runtime.selectionReason() + ")");
            }
            if (runtime.backendName().equals(HostBackend.NAME)) {
                // The host backend is the device runtime's CPU stand-in: staging there would only
                // pretend to be a GPU cache. Say so and keep outputs in the host store.
                throw new IllegalStateException("the device runtime has no GPU (" + runtime.selectionReason() + ")");
            }
            DeviceMatch device = ExecutorGpu.device(runtime);
            DeviceMemoryPool pool = DeviceMemoryPool.create(runtime, device.ordinal(), config);
            TieredShuffleStore tiers = new TieredShuffleStore(runtime, device.ordinal(), pool, DeviceConfigKeys.HOST_TIER_LIMIT.get(config),
                    new LocalSpillDirectory(localDirectory.resolve("device-spill"), 0));
            LOG.info("Ferry map outputs staged on device {} of the {} backend ({}; {})", device.ordinal(), runtime.backendName(), device.reason(), runtime.selectionReason());
            return new DeviceTieredMapOutputStore(runtime, pool, tiers, parent.newChildAllocator("ferry-device-store-reads", 0, Long.MAX_VALUE));
        }
        catch (RuntimeException | LinkageError e) {
            runtime.close();
            throw e;
        }
    }
}
