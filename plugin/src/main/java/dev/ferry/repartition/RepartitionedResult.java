package dev.ferry.repartition;

import java.io.Serializable;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one output partition of a {@link DeviceRepartitioned} sends back to the driver: the
 * function's value and how its device batches got to its GPU.
 *
 * @param partition the output partition's id (as Spark's {@code spark_partition_id()} after {@code repartition(n, keys)})
 * @param round the round whose reduce job ran the function: 1, or more where an executor holding some of the partition's blocks
 *        was lost and those maps ran again ({@link DeviceRepartitioned})
 * @param value what the function returned
 * @param executorId the executor the partition's task ran on
 * @param device the GPU ordinal the batches were in
 * @param batches device batches handed to the function
 * @param rows rows in them
 * @param deviceBytes bytes of the packed blocks fetched into this GPU
 * @param bytesByRoute those bytes by the route that carried them ({@code LOCAL}: this executor's own store; {@code NVLINK},
 *        {@code PCIE_P2P}: peer copies into this GPU; {@code GPUDIRECT_RDMA}: READs into this GPU's registered memory;
 *        {@code HOST_STAGED}, {@code RDMA_HOST_STAGED}: through host memory)
 * @param hostStagedByDecidedRoute per route the topology decided for a peer, the bytes of its blocks that passed through host memory
 *        anyway (a spilled block, a refused peer pair); 0 where every byte stayed on the device path
 * @param peerRoutes per map executor, the route decided and why
 * @param exportedAs how the last batch was handed over ({@code ARROW_DEVICE_CUDA}, {@code ARROW_DEVICE_CPU})
 * @param exportHostCopyBytes bytes the export copied back to host memory for the consumer because the backend lends no device address (0 on cuda)
 */
public record RepartitionedResult<R extends Serializable>(int partition, int round, R value, String executorId, int device, long batches, long rows, long deviceBytes,
        Map<String, Long> bytesByRoute, Map<String, Long> hostStagedByDecidedRoute, Map<String, String> peerRoutes, String exportedAs, long exportHostCopyBytes)
        implements Serializable
{
    public RepartitionedResult
    {
        bytesByRoute = Collections.unmodifiableMap(new TreeMap<>(bytesByRoute));
        hostStagedByDecidedRoute = Collections.unmodifiableMap(new TreeMap<>(hostStagedByDecidedRoute));
        peerRoutes = Collections.unmodifiableMap(new TreeMap<>(peerRoutes));
    }

    public long bytesOn(String route)
    {
        return bytesByRoute.getOrDefault(route, 0L);
    }
}
