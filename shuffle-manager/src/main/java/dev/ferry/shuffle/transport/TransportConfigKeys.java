package dev.ferry.shuffle.transport;

import java.util.List;

import dev.ferry.conf.ConfigKey;
import dev.ferry.conf.ConfigKeySet;

/** Every {@code spark.ferry.transport.*} setting of the transport building blocks, defined once. */
public final class TransportConfigKeys
        implements ConfigKeySet
{
    public static final ConfigKey<VerbsMode> VERBS = ConfigKey.choice("spark.ferry.transport.verbs", VerbsMode.class, VerbsMode.AUTO,
            "Verbs layer of the RDMA routes: auto (DiSNI when libdisni loads, the simulated layer when spark.ferry.device=simulated, else none), disni, simulated or off.");
    public static final ConfigKey<String> RDMA_ADDRESS = ConfigKey.string("spark.ferry.transport.rdma.address", "",
            "IPv4 address of this executor's RDMA NIC, by which RDMA CM opens it (DiSNI). Empty: the first IPv4 address of the network "
                    + "interfaces the topology lists for the NIC chosen for this executor's GPU (ib0, or the RoCE port's Ethernet device).");
    public static final ConfigKey<Integer> RDMA_CONNECT_TIMEOUT_MILLIS = ConfigKey.integer("spark.ferry.transport.rdma.connectTimeoutMillis", 10000,
            "Deadline of an RDMA connect in milliseconds; on expiry the endpoint is closed (DiSNI alone would wait for ever on some CM errors).");
    public static final ConfigKey<Integer> RDMA_QUEUE_DEPTH = ConfigKey.integer("spark.ferry.transport.rdma.queueDepth", 256,
            "Send queue slots per RDMA connection; unsignaled READs hold theirs until a later signaled READ completes.");
    public static final ConfigKey<Integer> RDMA_MAX_OUTSTANDING_READS = ConfigKey.integer("spark.ferry.transport.rdma.maxOutstandingReads", 16,
            "READs in flight per RDMA connection (keep at or below the HCA's max_qp_rd_atom).");
    public static final ConfigKey<Integer> RDMA_CQ_SIZE = ConfigKey.integer("spark.ferry.transport.rdma.completionQueueSize", 512,
            "Completion queue entries per RDMA connection; an overrun kills the queue, so keep it at least the queue depth.");
    public static final ConfigKey<Long> RDMA_MAX_REGION_BYTES = ConfigKey.bytes("spark.ferry.transport.rdma.maxRegionBytes", "2147483647",
            "Largest single memory registration; larger buffers are registered as several regions (DiSNI lengths are ints, so at most 2147483647).");
    public static final ConfigKey<Long> RDMA_READ_CHUNK_BYTES = ConfigKey.bytes("spark.ferry.transport.rdma.readChunkBytes", "256k",
            "Largest single RDMA READ; a block is read in READs of at most this size.");
    public static final ConfigKey<Boolean> SIMULATED_PEERMEM = ConfigKey.bool("spark.ferry.transport.simulated.peermem", true,
            "Whether the simulated NIC behaves as if nvidia_peermem were loaded; false refuses device memory registration as the real driver does.");
    public static final ConfigKey<Long> SIMULATED_BAR1_BYTES = ConfigKey.bytes("spark.ferry.transport.simulated.bar1Bytes", "256m",
            "BAR1 budget of each simulated GPU: how much device memory the simulated NIC can pin for GPUDirect RDMA.");
    public static final ConfigKey<Integer> AUTH_TIMEOUT_MILLIS = ConfigKey.integer("spark.ferry.transport.auth.timeoutMillis", 30000,
            "How long a peer has to complete authentication (when spark.authenticate is on) before the connection is dropped.");
    public static final ConfigKey<Integer> SERVER_MAX_CONNECTIONS = ConfigKey.integer("spark.ferry.transport.server.maxConnections", 256,
            "Connections an executor's Ferry block server keeps open at once (each is served by its own thread); one more is closed as soon as it is accepted, "
                    + "counted and logged (once per peer host per minute). Readers open at most spark.ferry.transport.maxConnectionsPerPeer each.");
    public static final ConfigKey<String> SHM_DIR = ConfigKey.string("spark.ferry.transport.shm.dir", "/dev/shm",
            "Directory of HOST_SHM block files (0600, unguessable names); java.io.tmpdir when absent.");
    public static final ConfigKey<Long> SHM_STAGING_BYTES = ConfigKey.bytes("spark.ferry.transport.shm.stagingBytes", "256m",
            "Shared-memory staging arena of an executor (at most 2g): blocks it serves to same-node peers that are not already in shared memory "
                    + "(HOST_STAGED blocks copied out of its GPU, spilled HOST_SHM blocks) are copied into reused ranges of it, which readers map once. "
                    + "Made on first use. A block that finds no free range gets a file of its own (counted, logged once); 0 gives every such block its own file.");
    public static final ConfigKey<Long> HOST_LANDING_POOL_BYTES = ConfigKey.bytes("spark.ferry.transport.hostLandingPoolBytes", "256m",
            "Idle pinned host memory an executor keeps for GPU blocks fetched over NVLINK or PCIE_P2P into host memory (for Spark's CPU operators): "
                    + "copies out of GPU memory land in reused page-locked buffers instead of fresh pageable memory. Buffers in use are not limited by this, "
                    + "only by the fetch limits; 0 frees each buffer after use.");

    public static final ConfigKey<Integer> CONNECT_MAX_RETRIES = ConfigKey.integer("spark.ferry.transport.connect.maxRetries", 3,
            "How often a fetch retries a connection to a peer that refused or timed out (a transient error: the peer's server may be starting or busy), waiting longer each time; 0 disables retries. Errors after a connection was made are never retried here: they become FetchFailedExceptions.");
    public static final ConfigKey<Integer> CONNECT_RETRY_WAIT_MILLIS = ConfigKey.integer("spark.ferry.transport.connect.retryWaitMillis", 200,
            "Wait before the first connection retry in milliseconds; each further retry waits twice as long as the one before.");
    public static final ConfigKey<Integer> MAX_CONNECTIONS_PER_PEER = ConfigKey.integer("spark.ferry.transport.maxConnectionsPerPeer", 4,
            "Fetches in flight to one peer at a time (each on its own connection); further fetches wait. With spark.ferry.shuffle.fetch.maxBytesInFlight per fetch this bounds the bytes in flight per peer.");
    public static final ConfigKey<InjectedFault> TEST_FAULT_INJECTION = ConfigKey.choice("spark.ferry.transport.test.faultInjection", InjectedFault.class, InjectedFault.NONE,
            "TEST ONLY: a fault the simulated NIC injects into one RDMA READ it serves (flip_byte, cut_short, stale_key, peer_dies, process_dies); none in production. Logged as a warning when it fires.");
    public static final ConfigKey<String> TEST_FAULT_ONCE_FILE = ConfigKey.string("spark.ferry.transport.test.faultInjection.onceFile", "",
            "TEST ONLY: with spark.ferry.transport.test.faultInjection, inject the fault only in the first process to create this file (once per cluster, not once per executor).");

    @Override
    public String section()
    {
        return "Transports";
    }

    @Override
    public List<ConfigKey<?>> keys()
    {
        return List.of(VERBS, RDMA_ADDRESS, RDMA_CONNECT_TIMEOUT_MILLIS, RDMA_QUEUE_DEPTH, RDMA_MAX_OUTSTANDING_READS, RDMA_CQ_SIZE, RDMA_MAX_REGION_BYTES,
                RDMA_READ_CHUNK_BYTES, SIMULATED_PEERMEM, SIMULATED_BAR1_BYTES, AUTH_TIMEOUT_MILLIS, SERVER_MAX_CONNECTIONS, SHM_DIR, SHM_STAGING_BYTES, HOST_LANDING_POOL_BYTES, CONNECT_MAX_RETRIES,
                CONNECT_RETRY_WAIT_MILLIS, MAX_CONNECTIONS_PER_PEER, TEST_FAULT_INJECTION, TEST_FAULT_ONCE_FILE);
    }
}
