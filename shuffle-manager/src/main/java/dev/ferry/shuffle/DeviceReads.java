package dev.ferry.shuffle;

import dev.ferry.shuffle.placement.ExecutorPlace;
import dev.ferry.shuffle.store.DeviceTieredMapOutputStore;
import dev.ferry.shuffle.transport.client.TcpShuffleTransport;
import dev.ferry.shuffle.transport.crypto.SparkCryptoSettings;
import dev.ferry.shuffle.transport.ipc.DeviceBlockReader;
import dev.ferry.shuffle.transport.ipc.DeviceLanding;
import dev.ferry.shuffle.transport.metrics.RouteCounters;
import dev.ferry.shuffle.transport.rdma.VerbsBlocks;
import dev.ferry.shuffle.transport.shm.ShmBlockReader;
import dev.ferry.topology.model.ClusterTopology;
import dev.ferry.topology.route.RoutePolicy;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * What an executor with a device store and a topology lends to consumers that keep blocks on the
 * GPU (device batches repartitioned across executors): its device store, where fetched blocks land
 * (the store's pool), the reader that copies a same-node peer's exported block into this GPU, the
 * stream connections the IPC handles are asked for on, this executor's place and the NIC, the route policy
 * that decides each pair, and the JVM's per-route counters. All owned by the shuffle runtime.
 *
 * @param verbs this executor's NIC for GPUDIRECT_RDMA into its GPU; empty without a verbs layer
 * @param crypto Spark's encryption settings, under which device routes that would leave blocks outside the encrypted stream are not used
 * @param staged reads blocks a peer has spilled to host memory out of shared memory, uncounted (the caller counts them on HOST_STAGED)
 */
public record DeviceReads(DeviceTieredMapOutputStore store, DeviceLanding landing, DeviceBlockReader reader, TcpShuffleTransport stream, ShmBlockReader staged,
        Optional<VerbsBlocks> verbs, ExecutorPlace self, ClusterTopology cluster, RoutePolicy policy, RouteCounters counters, SparkCryptoSettings crypto)
{
    public DeviceReads
    {
        requireNonNull(store, "store is null");
        requireNonNull(landing, "landing is null");
        requireNonNull(reader, "reader is null");
        requireNonNull(stream, "stream is null");
        requireNonNull(staged, "staged is null");
        requireNonNull(verbs, "verbs is null");
        requireNonNull(self, "self is null");
        requireNonNull(cluster, "cluster is null");
        requireNonNull(policy, "policy is null");
        requireNonNull(counters, "counters is null");
        requireNonNull(crypto, "crypto is null");
    }
}
