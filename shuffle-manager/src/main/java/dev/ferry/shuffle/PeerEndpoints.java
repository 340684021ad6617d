package dev.ferry.shuffle;

import java.util.Optional;
import java.util.OptionalInt;

import dev.ferry.shuffle.transport.PeerAddress;
import org.apache.spark.storage.BlockManagerId;
import scala.Option;

/**
 * Where a map output can be fetched from rides in the MapStatus location's {@code topologyInfo}
 * ({@code ferry.tcp=<port>}), beside the executor's real block manager id, so the DAGScheduler
 * still drops the output when that executor or host is lost.
 */
public final class PeerEndpoints
{
    private static final String TCP_PREFIX = "ferry.tcp=";

    private PeerEndpoints() {}

    public static BlockManagerId withTcpPort(BlockManagerId shuffleServer, int port)
    {
        return BlockManagerId.apply(shuffleServer.executorId(), shuffleServer.host(), shuffleServer.port(), Option.apply(TCP_PREFIX + port));
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
        return port.isPresent() ? Optional.of(new PeerAddress(location.executorId(), location.host(), port.getAsInt())) : Optional.empty();
    }
}
