package dev.ferry.examples.bench.transport;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.pool.BlockLease;
import dev.ferry.device.pool.DeviceMemoryPool;
import dev.ferry.device.pool.LocalSpillDirectory;
import dev.ferry.device.pool.StoredBlock;
import dev.ferry.device.pool.TieredShuffleStore;
import dev.ferry.shuffle.transport.DeviceBlockSource;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.auth.TcpAuth;
import dev.ferry.shuffle.transport.routing.BlockServers;
import dev.ferry.shuffle.transport.server.TcpBlockServer;
import dev.ferry.shuffle.transport.TransportConfigKeys;
import dev.ferry.shuffle.transport.shm.ShmBlockWriter;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * The serving executor of the NVLINK and PCIE_P2P measurements, in a JVM of its own: CUDA IPC
 * handles (the simulated backend's too, which checks the exporter's pid as CUDA does) open only in
 * another process, so the peer must be one. Its blocks sit in a simulated GPU's
 * {@link TieredShuffleStore} and its {@link TcpBlockServer} lends them over IPC, exactly as an
 * executor with {@code spark.ferry.shuffle.stage=device} does. Prints {@code LISTEN <port>}, then
 * serves until its stdin closes (the benchmark exits or closes it), and exits.
 * Arguments: blocks, bytes per block, shared-memory directory.
 */
public final class DevicePeerProcess
{
    private DevicePeerProcess() {}

    public static void main(String[] args)
            throws Exception
    {
        int blocks = Integer.parseInt(args[0]);
        int blockBytes = Integer.parseInt(args[1]);
        Path shm = Files.createDirectories(Path.of(args[2]));
        long bytes = (long) blocks * blockBytes;
        try (BufferAllocator allocator = new RootAllocator();
                DeviceRuntime runtime = DeviceRuntime.create(new MapConfigSource(Map.of("spark.ferry.device", "simulated",
                        "spark.ferry.device.simulated.capacity", Long.toString(bytes + (64L << 20)))));
                DeviceMemoryPool pool = new DeviceMemoryPool(runtime, 0, bytes + blockBytes, 100);
                TieredShuffleStore store = new TieredShuffleStore(runtime, 0, pool, bytes, new LocalSpillDirectory(shm.resolveSibling("peer-spill"), 0));
                ShmBlockWriter writer = new ShmBlockWriter(shm, TransportConfigKeys.SHM_STAGING_BYTES.defaultValue())) {
            try (ArrowBuf pattern = allocator.buffer(blockBytes)) {
                for (int block = 0; block < blocks; block++) {
                    BlockConsumer.fill(pattern.memoryAddress(), blockBytes, (long) block * blockBytes);
                    store.put(stored(new ShuffleBlockRef(1, block, 0)), pattern.nioBuffer(0, blockBytes));
                }
            }
            DeviceBlockSource device = new DeviceBlockSource()
            {
                @Override
                public DeviceRuntime runtime()
                {
                    return runtime;
                }

                @Override
                public Optional<BlockLease> borrow(ShuffleBlockRef block)
                {
                    return store.tryBorrow(stored(block));
                }
            };
            // Every block is on the GPU: the host path (a spilled block) is never asked for.
            try (TcpBlockServer server = BlockServers.builder(ref -> Optional.empty()).bind(InetAddress.getLoopbackAddress(), 0)
                    .maxFrameBytes(16 << 20).sharedMemory(writer).deviceBlocks(device).start()) {
                System.out.println("LISTEN " + server.port());
                System.out.flush();
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                while (in.readLine() != null) {
                    // Serve until the benchmark closes our stdin.
                }
            }
        }
    }

    static StoredBlock stored(ShuffleBlockRef ref)
    {
        return new StoredBlock(ref.shuffleId(), ref.mapId(), ref.reduceId(), 0, ref.mapId());
    }
}
