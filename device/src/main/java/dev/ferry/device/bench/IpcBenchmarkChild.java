package dev.ferry.device.bench;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceStream;
import dev.ferry.device.IpcHandle;
import dev.ferry.device.memory.DeviceBuffer;

import java.util.Map;

/**
 * The importing side of the IPC benchmark, run in its own JVM: opens the parent's handle and
 * copies the imported buffer into local device memory, printing {@code GBPS <value>}.
 * Arguments: backend mode, handle (base64), iterations.
 */
public final class IpcBenchmarkChild
{
    private IpcBenchmarkChild() {}

    public static void main(String[] args)
    {
        String mode = args[0];
        IpcHandle handle = IpcHandle.fromBase64(args[1]);
        int iterations = Integer.parseInt(args[2]);
        Map<String, String> config = Map.of(
                "spark.ferry.device", mode,
                "spark.ferry.device.simulated.count", String.valueOf(handle.device() + 1),
                "spark.ferry.device.simulated.capacity", String.valueOf(Math.max(1 << 20, handle.length() + 4096)));
        try (DeviceRuntime runtime = DeviceRuntime.create(new MapConfigSource(config));
                DeviceStream stream = runtime.newStream(handle.device());
                DeviceBuffer imported = runtime.openIpc(handle, handle.device());
                DeviceBuffer local = runtime.deviceAllocator(handle.device()).allocate(handle.length())) {
            double gbps = CopyBenchmark.measure(iterations, handle.length(), () -> {
                stream.copy(imported, 0, local, 0, handle.length());
                stream.synchronize();
            });
            System.out.println("GBPS " + gbps);
        }
    }
}
