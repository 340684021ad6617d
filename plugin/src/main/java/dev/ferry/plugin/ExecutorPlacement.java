package dev.ferry.plugin;

import java.io.Serializable;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * What an executor tells the driver about where it runs: sent once from
 * {@link FerryExecutorPlugin#init} to {@link FerryDriverPlugin#receive}.
 *
 * @param executorId Spark's executor id ("driver" in local mode)
 * @param hostname the host name Spark knows the executor by
 * @param gpuAddresses the GPU addresses Spark's resource scheduling assigned (empty without GPU scheduling)
 * @param nodeTopologyJson the executor's node in the topology file format, so the driver can rebuild it
 * @param summary one line for logs: devices found and what the probes could not see
 */
public record ExecutorPlacement(String executorId, String hostname, List<String> gpuAddresses, String nodeTopologyJson, String summary)
        implements Serializable
{
    private static final long serialVersionUID = 1L;

    public ExecutorPlacement
    {
        requireNonNull(executorId, "executorId is null");
        requireNonNull(hostname, "hostname is null");
        gpuAddresses = List.copyOf(gpuAddresses);
        requireNonNull(nodeTopologyJson, "nodeTopologyJson is null");
        requireNonNull(summary, "summary is null");
    }
}
