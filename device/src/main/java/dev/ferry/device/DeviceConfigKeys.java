package dev.ferry.device;

import dev.ferry.conf.ConfigKey;
import dev.ferry.conf.ConfigKeySet;

import java.util.List;

/** Every {@code spark.ferry.device*} setting, defined once. */
public final class DeviceConfigKeys
        implements ConfigKeySet
{
    public static final ConfigKey<DeviceMode> DEVICE = ConfigKey.choice("spark.ferry.device", DeviceMode.class, DeviceMode.AUTO,
            "Device backend: auto (cuda when its libraries load and a GPU is visible, else host), cuda, simulated or host.");
    public static final ConfigKey<Long> MEMORY_LIMIT = ConfigKey.bytes("spark.ferry.device.memoryLimit", "0",
            "Most device memory Ferry allocates per device; 0 means the whole device.");
    public static final ConfigKey<Long> PINNED_LIMIT = ConfigKey.bytes("spark.ferry.device.pinnedLimit", "1g",
            "Most pinned (page-locked) host memory Ferry allocates.");
    public static final ConfigKey<Boolean> RECORD_ALLOCATION_SITES = ConfigKey.bool("spark.ferry.device.debug.allocationSites", false,
            "Remember the stack of every allocation so leak reports say where leaked buffers came from (slow; tests and debugging).");
    public static final ConfigKey<Long> POOL_SLAB_SIZE = ConfigKey.bytes("spark.ferry.device.pool.slabSize", "64m",
            "cuda: device memory is taken from the driver in slabs of this size (a larger buffer gets a slab of its own) and sub-allocated, so a buffer costs no cudaMalloc/cudaFree; slabs stay within memoryLimit.");
    public static final ConfigKey<Integer> STREAMS_IDLE_PER_DEVICE = ConfigKey.integer("spark.ferry.device.streams.idlePerDevice", 16,
            "How many closed streams the runtime keeps per device for reuse (each with its two pinned staging chunks once it staged a copy).");
    public static final ConfigKey<Long> STAGING_CHUNK = ConfigKey.bytes("spark.ferry.device.stagingChunk", "2m",
            "Size of each of a stream's two pinned staging chunks, through which copies between JVM buffers and device memory are double-buffered (counted against pinnedLimit).");

    public static final ConfigKey<Integer> POOL_WAIT_MILLIS = ConfigKey.integer("spark.ferry.device.pool.waitMillis", 30000,
            "How long a pool allocation waits for memory after spilling could not free enough, in milliseconds, before it fails.");
    public static final ConfigKey<Long> HOST_TIER_LIMIT = ConfigKey.bytes("spark.ferry.device.pool.hostTierLimit", "1g",
            "Most host memory the shuffle store's host tier holds before blocks spill on to local disk.");
    public static final ConfigKey<String> SPILL_DIR = ConfigKey.string("spark.ferry.device.pool.spillDir", "",
            "Directory of the disk tier of a device store built outside Spark (bin/ferry bench; TieredShuffleStore.create); empty means "
                    + "java.io.tmpdir. Not read in a Spark job: there the shuffle's device store (spark.ferry.shuffle.stage=device) spills "
                    + "into the executor's Spark local directory, unbounded.");
    public static final ConfigKey<Long> SPILL_DIR_LIMIT = ConfigKey.bytes("spark.ferry.device.pool.spillDirLimit", "0",
            "Most bytes the disk tier of a device store built outside Spark writes into spark.ferry.device.pool.spillDir; 0 means limited "
                    + "only by the disk. Not read in a Spark job (see spillDir).");

    public static final ConfigKey<Integer> SIMULATED_COUNT = ConfigKey.integer("spark.ferry.device.simulated.count", 2,
            "Number of simulated GPUs.");
    public static final ConfigKey<Long> SIMULATED_CAPACITY = ConfigKey.bytes("spark.ferry.device.simulated.capacity", "256m",
            "Memory of each simulated GPU (at most 2g minus 4k); backed lazily by a shared-memory file.");
    public static final ConfigKey<Boolean> SIMULATED_PEER_ACCESS = ConfigKey.bool("spark.ferry.device.simulated.peerAccess", true,
            "Whether simulated GPUs can reach each other (cudaDeviceCanAccessPeer); peer copies still need peer access enabled first.");
    public static final ConfigKey<String> SIMULATED_BUS_IDS = ConfigKey.string("spark.ferry.device.simulated.busIds", "",
            "Comma-separated PCI bus ids of the simulated GPUs in ordinal order (e.g. to simulate CUDA_VISIBLE_DEVICES reordering); empty names them simulated:<ordinal>.");
    public static final ConfigKey<String> SIMULATED_SHM_DIR = ConfigKey.string("spark.ferry.device.simulated.shmDir", "/dev/shm",
            "Directory of the shared-memory files behind simulated GPU memory and IPC leases; falls back to java.io.tmpdir when absent.");
    public static final ConfigKey<String> SIMULATED_PEER_PATH = ConfigKey.string("spark.ferry.device.simulated.peerPath", "NVL",
            "The topology path class between simulated GPUs (LOC, NVL, PIX, PXB, PHB, NODE or SYS), which picks the shaped peer bandwidth.");
    public static final ConfigKey<Boolean> SHAPING_ENABLED = ConfigKey.bool("spark.ferry.device.simulated.shaping.enabled", false,
            "Slow simulated copies to the bandwidths below, so tests can observe link timing.");
    public static final ConfigKey<Double> SHAPING_NVLINK_GBPS = ConfigKey.decimal("spark.ferry.device.simulated.shaping.nvlinkGBps", 150.0,
            "Shaped bandwidth in GB/s of a peer copy over NVLink; 0 means unshaped.");
    public static final ConfigKey<Double> SHAPING_PCIE_GBPS = ConfigKey.decimal("spark.ferry.device.simulated.shaping.pcieGBps", 25.0,
            "Shaped bandwidth in GB/s of host-device copies and of peer copies through PCIe switches or a host bridge (PIX, PXB, PHB, NODE); 0 means unshaped.");
    public static final ConfigKey<Double> SHAPING_SYS_GBPS = ConfigKey.decimal("spark.ferry.device.simulated.shaping.sysGBps", 12.0,
            "Shaped bandwidth in GB/s of a peer copy across sockets (SYS); 0 means unshaped.");
    public static final ConfigKey<Double> SHAPING_LOCAL_GBPS = ConfigKey.decimal("spark.ferry.device.simulated.shaping.localGBps", 0.0,
            "Shaped on-device copy bandwidth in GB/s; 0 means unshaped.");

    public static final ConfigKey<Boolean> CUFILE_ENABLED = ConfigKey.bool("spark.ferry.device.cufile.enabled", true,
            "Try cuFile (GPUDirect Storage) for device file reads on the cuda backend; false reads through POSIX and a host copy.");
    public static final ConfigKey<Boolean> CUFILE_ALLOW_COMPAT_MODE = ConfigKey.bool("spark.ferry.device.cufile.allowCompatMode", true,
            "cuFile's allow_compat_mode, set before the driver opens; false makes a non-direct file fail registration, proving direct reads.");

    @Override
    public String section()
    {
        return "Device runtime";
    }

    @Override
    public List<ConfigKey<?>> keys()
    {
        return List.of(DEVICE, MEMORY_LIMIT, PINNED_LIMIT, RECORD_ALLOCATION_SITES,
                POOL_SLAB_SIZE, STREAMS_IDLE_PER_DEVICE, STAGING_CHUNK,
                POOL_WAIT_MILLIS, HOST_TIER_LIMIT, SPILL_DIR, SPILL_DIR_LIMIT,
                SIMULATED_COUNT, SIMULATED_CAPACITY, SIMULATED_PEER_ACCESS, SIMULATED_BUS_IDS, SIMULATED_SHM_DIR, SIMULATED_PEER_PATH,
                SHAPING_ENABLED, SHAPING_NVLINK_GBPS, SHAPING_PCIE_GBPS, SHAPING_SYS_GBPS, SHAPING_LOCAL_GBPS,
                CUFILE_ENABLED, CUFILE_ALLOW_COMPAT_MODE);
    }
}
