package dev.ferry.shuffle.transport.contract;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.pool.DeviceMemoryPool;
import dev.ferry.shuffle.PeerEndpoints;
import dev.ferry.shuffle.placement.ExecutorPlace;
import dev.ferry.shuffle.transport.ChildProcess;
import dev.ferry.shuffle.transport.FetchedBlocks;
import dev.ferry.shuffle.transport.PeerAddress;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.client.TcpShuffleTransport;
import dev.ferry.shuffle.transport.crypto.SparkCryptoSettings;
import dev.ferry.shuffle.transport.ipc.DeviceLanding;
import dev.ferry.shuffle.transport.metrics.PeerRouteLog;
import dev.ferry.shuffle.transport.metrics.RouteCounters;
import dev.ferry.shuffle.transport.routing.RoutingShuffleTransport;
import dev.ferry.shuffle.transport.shm.ShmBlockReader;
import dev.ferry.topology.file.TopologyFileReader;
import dev.ferry.topology.model.ClusterTopology;
import dev.ferry.topology.route.Route;
import dev.ferry.topology.route.RoutePolicy;
import dev.ferry.topology.route.RoutePolicyConfig;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.spark.storage.BlockManagerId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two executors of one node that do not share {@code /dev/shm} (separate pods or containers): the
 * exporter is a child JVM whose simulated GPU memory lives in a directory the reader does not see,
 * so its CUDA IPC handles cannot be opened here. The reader falls back per peer: with the
 * transport's shared-memory directory still shared, to HOST_STAGED; without it too, on to TCP. Every
 * block arrives as the exporter stored it, no fetch fails, the fallback is logged once and counted
 * once, and a second fetch goes straight to the route it fell back to.
 */
class TestIpcFallbackAcrossProcesses
{
    @TempDir
    Path directory;

    @Test
    void withoutTheExportersDeviceMemoryBlocksFallBackToHostStaged()
            throws Exception
    {
        Path shared = Files.createDirectories(directory.resolve("transport-shm"));
        List<String> logged = run(shared, shared, "HOST_STAGED");
        assertEquals(2, logged.size(), "the first decision and one fallback: " + logged);
        assertTrue(logged.get(1).contains("changed from PEER_GPU_D2H to HOST_STAGED") && logged.get(1).contains("Refusing shared-memory file"), logged.get(1));
    }

    @Test
    void withoutAnySharedMemoryBlocksFallBackToTcp()
            throws Exception
    {
        Path served = Files.createDirectories(directory.resolve("server-transport-shm"));
        Path read = Files.createDirectories(directory.resolve("reader-transport-shm"));
        List<String> logged = run(served, read, "TCP");
        assertEquals(3, logged.size(), "the first decision and two fallbacks, each once: " + logged);
        assertTrue(logged.get(1).contains("changed from PEER_GPU_D2H to HOST_STAGED"), logged.get(1));
        assertTrue(logged.get(2).contains("changed from HOST_STAGED to TCP") && logged.get(2).contains("is not visible here"), logged.get(2));
    }

    private List<String> run(Path serverShm, Path readerShm, String expectedRoute)
            throws Exception
    {
        List<String> logged = new CopyOnWriteArrayList<>();
        Map<ShuffleBlockRef, byte[]> expected = ContractBlocks.all(false);
        List<ShuffleBlockRef> refs = new ArrayList<>(expected.keySet());
        ClusterTopology dgx = TopologyFileReader.load(Path.of("..", "examples", "topologies", "dgx-h100-ib-2node.json"));
        String node = dgx.nodes().get(0).hostname();
        RouteCounters counters = new RouteCounters();
        try (ChildProcess child = ChildProcess.start(IpcContractServer.class, serverShm.toString(), "-", "false", directory.resolve("exporter-gpu").toString());
                DeviceRuntime runtime = DeviceRuntime.create(new MapConfigSource(Map.of("spark.ferry.device", "simulated", "spark.ferry.device.simulated.capacity", "96m",
                        "spark.ferry.device.simulated.shmDir", Files.createDirectories(directory.resolve("reader-gpu")).toString())));
                DeviceMemoryPool landingPool = new DeviceMemoryPool(runtime, 0, 32L << 20, 100);
                BufferAllocator allocator = new RootAllocator()) {
            int port = Integer.parseInt(child.expect("LISTEN").trim());
            BlockManagerId location = PeerEndpoints.withEndpoints(BlockManagerId.apply("pod-b", "localhost", 7000, scala.Option.empty()), port,
                    Optional.of(new ExecutorPlace(node, Optional.of("GPU1"))), true);
            PeerAddress peer = PeerEndpoints.tcpPeer(location).orElseThrow();
            try (RoutingShuffleTransport routing = new RoutingShuffleTransport(dgx, new ExecutorPlace(node, Optional.of("GPU0")), new RoutePolicy(RoutePolicyConfig.defaults()),
                    new TcpShuffleTransport(20_000, 16 << 20), readerShm, new ShmBlockReader(readerShm, counters), Optional.empty(), "no NIC in this test", counters,
                    new PeerRouteLog(logged::add), Optional.of(new DeviceLanding(runtime, landingPool)), 64L << 20, SparkCryptoSettings.none())) {
                assertEquals(Route.PEER_GPU_D2H, routing.choose(peer).carrier(), routing.choose(peer).reason());
                for (int fetch = 0; fetch < 2; fetch++) {
                    try (FetchedBlocks fetched = routing.fetch(peer, refs, allocator)) {
                        for (int i = 0; i < refs.size(); i++) {
                            assertEquals(expectedRoute, fetched.routeOf(i), "fetch " + fetch + ", " + refs.get(i));
                            byte[] copy = new byte[(int) fetched.blocks().get(i).length()];
                            fetched.blocks().get(i).buffer().getBytes(0, copy);
                            assertArrayEquals(expected.get(refs.get(i)), copy, refs.get(i).toString());
                        }
                    }
                    assertEquals(expectedRoute.equals("TCP") ? 2 : 1, routing.fallbacks().total(), "counted once per step, not per fetch: " + routing.fallbacks().counts());
                }
                assertEquals(Route.valueOf(expectedRoute), routing.choose(peer).carrier());
                assertEquals(0, counters.bytes(Route.PEER_GPU_D2H));
                assertEquals(0, landingPool.allocator().allocatedBytes());
            }
            child.send("EXIT");
            assertEquals("RELEASED", child.nextLine().trim(), "the exporter got back every lease and buffer");
            child.expect("BYE");
            assertEquals(0, allocator.getAllocatedMemory(), "every fetched block was released");
        }
        return logged;
    }
}
