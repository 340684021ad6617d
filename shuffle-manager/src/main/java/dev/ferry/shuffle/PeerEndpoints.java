package dev.ferry.shuffle;

import java.util.Optional;
import java.util.OptionalInt;

import dev.ferry.shuffle.placement.ExecutorPlace;
import dev.ferry.shuffle.transport.PeerAddress;
import org.apache.spark.storage.BlockManagerId;
import scala.Option;

/**
 * Where a map output can be fetched from rides in the MapStatus location's {@code topologyInfo}
 * ({@code ferry.tcp=<port>}), beside the executor's real block manager id, so the DAGScheduler
 * still drops the output when that executor or host is lost. With a topology, the executor's place
 * and where its blocks live ride there too ({@code ferry.node=<node>;ferry.gpu=<gpu>;ferry.store=device|host}),
 * so every reader picks a route per peer without asking the driver.
 */
public final class PeerEndpoints
{
    private static final String TCP_PREFIX = "ferry.tcp=";
    private static final String NODE_PREFIX = "ferry.node=";
    private static final String GPU_PREFIX = "ferry.gpu=";
    private static final String STORE_PREFIX = "ferry.store=";
    private static final String DEVICE_STORE = "device";

    private PeerEndpoints() {}

    public static BlockManagerId withTcpPort(BlockManagerId shuffleServer, int port)
    {
        return BlockManagerId.apply(shuffleServer.executorId(), shuffleServer.host(), shuffleServer.port(), Option.apply(TCP_PREFIX + port));
    }

    /** The location with the TCP port, the executor's place and where its map outputs live (GPU memory or host). */
    public static BlockManagerId withEndpoints(BlockManagerId shuffleServer, int port, Optional<ExecutorPlace> place, boolean deviceResident)
    {
        StringBuilder info = new StringBuilder(TCP_PREFIX).append(port);
        place.ifPresent(known -> {
            info.append(';').append(NODE_PREFIX).append(known.node());
            known.gpu().ifPresent(gpu -> info.append(';').append(GPU_PREFIX).append(gpu));
        });
        info.append(';').append(STORE_PREFIX).append(deviceResident ? DEVICE_STORE : "host");
        return BlockManagerId.apply(shuffleServer.executorId(), shuffleServer.host(), shuffleServer.port(), Option.apply(info.toString()));
    }

    /** The place a peer announced in its topology info, if any. */
    public static Optional<ExecutorPlace> place(String topologyInfo)
    {
        Optional<String> node = part(topologyInfo, NODE_PREFIX);
        return node.map(name -> new ExecutorPlace(name, part(topologyInfo, GPU_PREFIX)));
    }

    /** Whether a peer announced that its map outputs live in GPU memory. */
    public static boolean deviceResident(String topologyInfo)
    {
        return part(topologyInfo, STORE_PREFIX).filter(DEVICE_STORE::equals).isPresent();
    }

    private static Optional<String> part(String topologyInfo, String prefix)
    {
        for (String part : topologyInfo.split(";")) {
            if (part.startsWith(prefix) && part.length() > prefix.length()) {
                return Optional.of(part.substring(prefix.length()));
            }
        }
        return Optional.empty();
    }

    public static OptionalInt tcpPort(BlockManagerId location)
    {
        Option<String> info = location.topologyInfo();
        if (info.isEmpty()) {
            return OptionalInt.empty();
        }
        for (String part : info.get().split(";")) {
            if (part.startsWith(TCP_PREFIX)) {
                try {
                    return OptionalInt.of(Integer.parseInt(part.substring(TCP_PREFIX.length())));
                }
                catch (NumberFormatException e) {
                    return OptionalInt.empty();
                }
            }
        }
        return OptionalInt.empty();
    }

    public static Optional<PeerAddress> tcpPeer(BlockManagerId location)
    {
        OptionalInt port = tcpPort(location);
        return port.isPresent() ? Optional.of(new PeerAddress(location.executorId(), location.host(), port.getAsInt(),
                location.topologyInfo().isDefined() ? location.topologyInfo().get() : "")) : Optional.empty();
    }
}
