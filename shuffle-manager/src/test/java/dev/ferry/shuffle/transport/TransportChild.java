package dev.ferry.shuffle.transport;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceStream;
import dev.ferry.device.memory.DeviceBuffer;
import dev.ferry.shuffle.transport.rdma.verbs.Access;
import dev.ferry.shuffle.transport.rdma.verbs.DeviceRegistrations;
import dev.ferry.shuffle.transport.rdma.verbs.RegistrableMemory;
import dev.ferry.shuffle.transport.rdma.verbs.Registration;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsDevice;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsSettings;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.CmFault;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.SimulatedNicOptions;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.SimulatedVerbsProvider;
import dev.ferry.shuffle.transport.shm.ShmBlockHandle;
import dev.ferry.shuffle.transport.shm.ShmBlockWriter;
import dev.ferry.shuffle.transport.shm.ShmNames;
import dev.ferry.shuffle.transport.wire.BlockLocation;
import dev.ferry.shuffle.transport.wire.FrameWriter;
import dev.ferry.shuffle.transport.wire.Message;
import dev.ferry.shuffle.transport.wire.RemoteSlices;
import dev.ferry.shuffle.transport.wire.ShmLocation;

/**
 * The other executor of the cross-process tests. Arguments: mode, seed, length.
 * <ul>
 * <li>{@code verbs-host} / {@code verbs-gpu}: opens a simulated NIC, registers a block (host memory,
 *     or simulated GPU 0 memory for GPUDirect RDMA) in regions of at most 4096 bytes, prints
 *     {@code LISTEN port} and {@code LOCATIONS base64(frame)}; on {@code DEREG} deregisters and prints {@code DEREGISTERED}.</li>
 * <li>{@code ipc}: exports a simulated GPU 0 block, prints {@code HANDLE base64}.</li>
 * <li>{@code shm}: publishes a host block in shared memory, prints {@code SHM base64}; on {@code RELEASE} deletes it and prints {@code RELEASED}.</li>
 * </ul>
 * Every mode ends on {@code EXIT} and prints {@code BYE}.
 */
public final class TransportChild
{
    static final Map<String, String> DEVICE_CONFIG = Map.of(
            "spark.ferry.device", "simulated",
            "spark.ferry.device.simulated.capacity", "8m");
    static final VerbsSettings VERBS_SETTINGS = new VerbsSettings(64, 8, 256, 4096, Duration.ofSeconds(10));

    private TransportChild() {}

    public static void main(String[] args)
            throws Exception
    {
        String mode = args[0];
        long seed = Long.parseLong(args[1]);
        int length = Integer.parseInt(args[2]);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (DeviceRuntime runtime = DeviceRuntime.create(new MapConfigSource(DEVICE_CONFIG))) {
            switch (mode) {
                case "verbs-host", "verbs-gpu" -> serveVerbs(runtime, mode.equals("verbs-gpu"), seed, length, in);
                case "ipc" -> exportIpc(runtime, seed, length, in);
                case "shm" -> publishShm(seed, length, in);
                default -> throw new IllegalArgumentException("unknown mode " + mode);
            }
        }
        say("BYE");
    }

    private static void serveVerbs(DeviceRuntime runtime, boolean gpu, long seed, int length, BufferedReader in)
            throws Exception
    {
        SimulatedVerbsProvider provider = new SimulatedVerbsProvider(new SimulatedNicOptions(true, 1 << 20, false, CmFault.NONE));
        try (VerbsDevice device = provider.openLoopbackDevice("sim_mlx5_0", VERBS_SETTINGS)) {
            DeviceBuffer gpuBlock = null;
            RegistrableMemory memory;
            if (gpu) {
                gpuBlock = runtime.deviceAllocator(0).allocate(length);
                try (DeviceStream stream = runtime.newStream(0)) {
                    stream.copyFromHost(TestBytes.direct(seed, length), gpuBlock, 0);
                    stream.synchronize();
                }
                memory = DeviceRegistrations.of(gpuBlock);
            }
            else {
                memory = RegistrableMemory.host(TestBytes.direct(seed, length));
            }
            Registration registration = device.protectionDomain().register(memory, Access.remoteReadable());
            // The shuffle protocol's answer to an RDMA fetch, as the block server would send it.
            RemoteSlices slices = new RemoteSlices(gpu ? RemoteSlices.Memory.DEVICE : RemoteSlices.Memory.HOST, length, "localhost", device.listenAddress().getPort(),
                    registration.remoteSlices(0, length));
            Message response = new BlockLocation(1, 0, slices);
            ByteArrayOutputStream frame = new ByteArrayOutputStream();
            new FrameWriter(frame).write(response);
            byte[] bytes = frame.toByteArray();
            say("LISTEN " + device.listenAddress().getPort());
            say("LOCATIONS " + Base64.getEncoder().encodeToString(bytes));
            for (String line = in.readLine(); line != null && !line.equals("EXIT"); line = in.readLine()) {
                if (line.equals("DEREG")) {
                    registration.deregister();
                    say("DEREGISTERED");
                }
                else if (line.equals("ADMIT")) {
                    // What the block server hands a reader over its authenticated session: a token for one queue pair.
                    say("TOKEN " + Base64.getEncoder().encodeToString(device.admissions().issue(1, "127.0.0.1").privateData()));
                }
            }
            if (gpuBlock != null) {
                gpuBlock.close();
            }
        }
    }

    private static void exportIpc(DeviceRuntime runtime, long seed, int length, BufferedReader in)
            throws Exception
    {
        try (DeviceBuffer block = runtime.deviceAllocator(0).allocate(length); DeviceStream stream = runtime.newStream(0)) {
            stream.copyFromHost(TestBytes.direct(seed, length), block, 0);
            stream.synchronize();
            say("HANDLE " + runtime.exportIpc(block).toBase64());
            awaitExit(in);
        }
        runtime.reclaimIpcReleases();
    }

    private static void publishShm(long seed, int length, BufferedReader in)
            throws Exception
    {
        try (ShmBlockWriter writer = new ShmBlockWriter(ShmNames.directory(MapConfigSource.empty()))) {
            ShmBlockHandle handle = writer.publish(TestBytes.direct(seed, length));
            ShmLocation location = handle.toLocation();
            ByteBuffer encoded = ByteBuffer.allocate(location.encodedLength());
            location.encode(encoded);
            say("SHM " + Base64.getEncoder().encodeToString(encoded.array()));
            for (String line = in.readLine(); line != null && !line.equals("EXIT"); line = in.readLine()) {
                if (line.equals("RELEASE")) {
                    writer.release(handle);
                    say("RELEASED");
                }
            }
        }
    }

    private static void awaitExit(BufferedReader in)
            throws Exception
    {
        for (String line = in.readLine(); line != null && !line.equals("EXIT"); line = in.readLine()) {
            // Only EXIT matters here.
        }
    }

    private static void say(String line)
    {
        System.out.println(line);
        System.out.flush();
    }
}
