package dev.ferry.shuffle.transport.contract;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.shuffle.placement.ExecutorPlace;
import dev.ferry.shuffle.transport.ShuffleBlockRef;
import dev.ferry.shuffle.transport.gpurdma.GpuRdmaDeviceFetcher;
import dev.ferry.shuffle.transport.ipc.IpcDeviceFetcher;
import dev.ferry.shuffle.transport.ipc.IpcDeviceFetcher.Landed;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.CmFault;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.SimulatedNicOptions;
import dev.ferry.topology.route.Route;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The device consumer's fetchers, which land a peer's GPU-resident blocks in the reader's GPU
 * (where the CPU reduce's fetchers land them in host memory): over CUDA IPC with a peer copy
 * (NVLINK, two GPUs of one dgx-h100-ib-2node node) and over GPUDirect RDMA into the reader's
 * registered GPU memory (the two nodes, simulated NICs with peer memory). Every block arrives byte
 * for byte, counted on the route that carried it and on no staged route.
 */
class TestDeviceConsumerFetchers
{
    @TempDir
    Path directory;

    @Test
    void nvlinkPeerCopiesLandEveryBlockInTheReadersGpu()
            throws Exception
    {
        // The serving executor is a child JVM: CUDA IPC handles (and the simulated backend's) open only in another process.
        try (IpcEndpoints endpoints = new IpcEndpoints("dgx-h100-ib-2node", new ExecutorPlace("dgx-a", Optional.of("GPU0")), new ExecutorPlace("dgx-a", Optional.of("GPU1")),
                ContractSecurity.of(Optional.empty()), ContractFault.NONE, directory.resolve("nvlink"))) {
            RoutedEndpoints.DeviceConsumerSide reader = endpoints.deviceConsumer();
            List<ShuffleBlockRef> refs = ContractBlocks.refs(false);
            List<Landed> landed = IpcDeviceFetcher.fetch(reader.stream(), endpoints.peer(), refs, Route.NVLINK, reader.reader(), reader.landing(), reader.staged(),
                    reader.staging(), reader.counters());
            assertLanded(endpoints::hostCopy, refs, landed, Route.NVLINK);
            assertEquals(total(), reader.counters().bytes(Route.NVLINK));
            assertEquals(0, reader.counters().bytes(Route.HOST_STAGED));
            assertEquals(0, reader.counters().bytes(Route.PEER_GPU_D2H), "no block went to host memory");
            endpoints.close();
            endpoints.assertReleased();
        }
    }

    @Test
    void gpudirectRdmaReadsLandEveryBlockInTheReadersRegisteredGpuMemory()
            throws Exception
    {
        RoutedEndpoints.NicFactory nics = SimulatedNics.with(new SimulatedNicOptions(true, 256L << 20, false, CmFault.NONE), ContractFault.NONE);
        RoutedEndpoints.Wiring wiring = new RoutedEndpoints.Wiring("dgx-h100-ib-2node", new ExecutorPlace("dgx-a", Optional.of("GPU0")),
                new ExecutorPlace("dgx-b", Optional.of("GPU0")), true, nics, ContractFault.NONE, 0);
        try (RoutedEndpoints endpoints = new RoutedEndpoints(wiring, ContractSecurity.of(Optional.empty()), directory.resolve("rdma"))) {
            RoutedEndpoints.DeviceConsumerSide reader = endpoints.deviceConsumer("device_reader");
            List<ShuffleBlockRef> refs = ContractBlocks.refs(false);
            List<Landed> landed = GpuRdmaDeviceFetcher.fetch(reader.stream(), endpoints.peer(), refs, reader.nic().orElseThrow(), reader.landing(), reader.staging(),
                    reader.counters());
            assertLanded(endpoints::hostCopy, refs, landed, Route.GPUDIRECT_RDMA);
            assertEquals(total(), reader.counters().bytes(Route.GPUDIRECT_RDMA));
            assertEquals(0, reader.counters().bytes(Route.RDMA_HOST_STAGED));
            endpoints.close();
            endpoints.assertReleased();
        }
    }

    private static void assertLanded(Function<DeviceBuffer, byte[]> hostCopy, List<ShuffleBlockRef> refs, List<Landed> landed, Route route)
    {
        Map<ShuffleBlockRef, byte[]> expected = ContractBlocks.all(false);
        try {
            assertEquals(refs.size(), landed.size());
            for (int i = 0; i < refs.size(); i++) {
                Landed block = landed.get(i);
                assertEquals(refs.get(i), block.block());
                assertEquals(route, block.carried(), "block " + block.block());
                assertEquals(0, block.buffer().location().device(), "landed in the reader's GPU");
                assertArrayEquals(expected.get(refs.get(i)), hostCopy.apply(block.buffer()), "bytes of " + block.block());
            }
        }
        finally {
            landed.forEach(Landed::close);
        }
    }

    private static long total()
    {
        return ContractBlocks.all(false).values().stream().mapToLong(bytes -> bytes.length).sum();
    }
}
