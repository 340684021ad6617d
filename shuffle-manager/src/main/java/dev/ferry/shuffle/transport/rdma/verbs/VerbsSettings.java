package dev.ferry.shuffle.transport.rdma.verbs;

import java.time.Duration;

import dev.ferry.conf.ConfigSource;
import dev.ferry.conf.MapConfigSource;
import dev.ferry.shuffle.transport.TransportConfigKeys;

import static java.util.Objects.requireNonNull;

/**
 * Sizes and limits of a verbs device.
 *
 * @param queueDepth send queue slots per connection ({@code maxWR}); unsignaled READs hold theirs until a later signaled one completes
 * @param maxOutstandingReads READs in flight per connection (the HCA's {@code max_qp_rd_atom} on real hardware)
 * @param completionQueueSize completions a connection's CQ holds before it overruns
 * @param maxRegionBytes the largest single region; registrations are split above it (at most 2 GiB - 1)
 * @param connectTimeout the default connect deadline
 */
public record VerbsSettings(int queueDepth, int maxOutstandingReads, int completionQueueSize, int maxRegionBytes, Duration connectTimeout)
{
    public VerbsSettings
    {
        requireNonNull(connectTimeout, "connectTimeout is null");
        if (queueDepth <= 0 || maxOutstandingReads <= 0 || completionQueueSize <= 0 || maxRegionBytes <= 0) {
            throw new IllegalArgumentException("Verbs sizes must be positive: queue depth " + queueDepth + ", outstanding reads " + maxOutstandingReads
                    + ", CQ size " + completionQueueSize + ", region bytes " + maxRegionBytes);
        }
        if (connectTimeout.isNegative() || connectTimeout.isZero()) {
            throw new IllegalArgumentException("connect timeout must be positive: " + connectTimeout);
        }
    }

    public static VerbsSettings from(ConfigSource config)
    {
        long region = TransportConfigKeys.RDMA_MAX_REGION_BYTES.get(config);
        if (region <= 0 || region > RegistrationChunks.MAX_REGION_BYTES) {
            throw new IllegalArgumentException(TransportConfigKeys.RDMA_MAX_REGION_BYTES.name() + " must be between 1 and " + RegistrationChunks.MAX_REGION_BYTES + ", got " + region);
        }
        return new VerbsSettings(
                TransportConfigKeys.RDMA_QUEUE_DEPTH.get(config),
                TransportConfigKeys.RDMA_MAX_OUTSTANDING_READS.get(config),
                TransportConfigKeys.RDMA_CQ_SIZE.get(config),
                (int) region,
                Duration.ofMillis(TransportConfigKeys.RDMA_CONNECT_TIMEOUT_MILLIS.get(config)));
    }

    public static VerbsSettings defaults()
    {
        return from(MapConfigSource.empty());
    }
}
