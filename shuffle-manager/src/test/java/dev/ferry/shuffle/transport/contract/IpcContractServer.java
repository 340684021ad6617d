package dev.ferry.shuffle.transport.contract;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.pool.BlockLease;
import dev.ferry.device.pool.DeviceMemoryPool;
import dev.ferry.device.pool.LocalSpillDirectory;
import dev.ferry.device.pool.StoredBlock;
import dev.ferry.device.pool.TieredShuffleStore;
import dev.ferry.shuffle.store.BlockBytes;
import dev.ferry.shuffle.transport.BlockSource;
import dev.ferry.shuffle.transport.DeviceBlockSource;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.routing.BlockServers;
import dev.ferry.shuffle.transport.server.TcpBlockServer;
import dev.ferry.shuffle.transport.shm.ShmBlockWriter;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * The serving executor of the IPC contract families, in its own JVM (CUDA IPC handles open only
 * in another process): {@link ContractBlocks} in a simulated GPU's tiered store, served by a
 * {@link TcpBlockServer} that lends them over IPC. Driven over stdin: {@code STATS} answers
 * {@code ACCEPTED n}; {@code HANDLE} answers {@code HANDLE <base64>} (the checked block exported);
 * {@code EXIT} closes everything and answers {@code RELEASED} or {@code LEAK <report>}, then {@code BYE}.
 * Arguments: the shared-memory directory, Spark's shared secret or {@code -}, and whether to encrypt
 * ({@code spark.network.crypto.enabled} and {@code spark.io.encryption.enabled}: no shared memory then);
 * optionally a directory for its simulated GPU memory (default: the simulated backend's).
 */
public final class IpcContractServer
{
    private IpcContractServer() {}

    public static void main(String[] args)
            throws Exception
    {
        Path shm = Files.createDirectories(Path.of(args[0]));
        Optional<String> secret = args[1].equals("-") ? Optional.empty() : Optional.of(args[1]);
        Map<ShuffleBlockRef, byte[]> blocks = ContractBlocks.all(false);
        BufferAllocator allocator = new RootAllocator();
        Map<String, String> deviceConfig = new HashMap<>(RoutedEndpoints.DEVICE_CONFIG);
        if (args.length > 3) {
            // Its simulated GPU memory in a directory of its own: a reader elsewhere cannot open its IPC handles (no shared /dev/shm).
            deviceConfig.put("spark.ferry.device.simulated.shmDir", Files.createDirectories(Path.of(args[3])).toString());
        }
        DeviceRuntime runtime = DeviceRuntime.create(new MapConfigSource(deviceConfig));
        DeviceMemoryPool pool = new DeviceMemoryPool(runtime, 0, 32L << 20, 100);
        TieredShuffleStore store = new TieredShuffleStore(runtime, 0, pool, 32L << 20, new LocalSpillDirectory(shm.resolveSibling("spill-" + ProcessHandle.current().pid()), 0));
        for (Map.Entry<ShuffleBlockRef, byte[]> block : blocks.entrySet()) {
            store.put(stored(block.getKey()), ByteBuffer.wrap(block.getValue()));
        }
        BlockSource source = ref -> {
            byte[] bytes = blocks.get(ref);
            if (bytes == null) {
                return Optional.empty();
            }
            ArrowBuf buffer = allocator.buffer(bytes.length);
            buffer.setBytes(0, bytes);
            return Optional.of(new BlockBytes(buffer, bytes.length));
        };
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
                return blocks.containsKey(block) ? store.tryBorrow(stored(block)) : Optional.empty();
            }
        };
        ContractSecurity security = new ContractSecurity(secret, Boolean.parseBoolean(args[2]));
        ShmBlockWriter writer = new ShmBlockWriter(shm, 64L << 20);
        TcpBlockServer server = BlockServers.builder(source).bind(InetAddress.getLoopbackAddress(), 0)
                .maxFrameBytes(16 << 20).sharedMemory(security.encrypt() ? null : writer).auth(security.tcpAuth()).deviceBlocks(device).start();
        System.out.println("LISTEN " + server.port());
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        BlockLease exported = null;
        while ((line = in.readLine()) != null) {
            switch (line) {
                case "STATS" -> System.out.println("ACCEPTED " + server.acceptedConnections());
                case "COUNTS" -> System.out.println("COUNTS " + server.blocksOpened() + " " + server.failures().logged());
                case "HANDLE" -> {
                    exported = store.tryBorrow(stored(ContractBlocks.CHECKED)).orElseThrow();
                    System.out.println("HANDLE " + runtime.exportIpc(exported.buffer()).toBase64());
                }
                case "EXIT" -> {
                    if (exported != null) {
                        exported.close();
                    }
                    server.close();
                    writer.close();
                    String report = "";
                    try {
                        store.close();
                        pool.close();
                        runtime.close();
                    }
                    catch (IllegalStateException e) {
                        report = e.getMessage().replace('\n', ' ');
                    }
                    if (allocator.getAllocatedMemory() != 0) {
                        report += " host allocator holds " + allocator.getAllocatedMemory() + " bytes";
                    }
                    System.out.println(report.isEmpty() ? "RELEASED" : "LEAK " + report);
                    System.out.println("BYE");
                    return;
                }
                default -> System.out.println("UNKNOWN " + line);
            }
        }
    }

    private static StoredBlock stored(ShuffleBlockRef ref)
    {
        return new StoredBlock(ref.shuffleId(), ref.mapId(), ref.reduceId(), 0, ref.mapId());
    }
}
