package dev.ferry.device.contract;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceStream;
import dev.ferry.device.memory.DeviceBuffer;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The exporting side of {@link TestPeerImportsAndCopies} and of the contract suite's reader-context
 * import test: a second executor (backend {@code mode}) that
 * writes {@code count} blocks of {@code length} bytes (pattern seeds {@code seed}, {@code seed + 1},
 * ...) into its GPU {@code device}, all in that GPU's one arena, prints one {@code HANDLE <base64>}
 * line per block and {@code READY}, and frees everything on {@code CLOSE}.
 */
public final class PeerExporterChild
{
    private PeerExporterChild() {}

    public static void main(String[] args)
            throws Exception
    {
        String mode = args[0];
        int device = Integer.parseInt(args[1]);
        int count = Integer.parseInt(args[2]);
        int length = Integer.parseInt(args[3]);
        long seed = Long.parseLong(args[4]);
        Map<String, String> config = Map.of(
                "spark.ferry.device", mode,
                "spark.ferry.device.simulated.count", String.valueOf(device + 1),
                "spark.ferry.device.simulated.capacity", "4m",
                "spark.ferry.device.memoryLimit", "64m");
        List<DeviceBuffer> blocks = new ArrayList<>();
        try (DeviceRuntime runtime = DeviceRuntime.create(new MapConfigSource(config))) {
            try (DeviceStream stream = runtime.newStream(device)) {
                for (int i = 0; i < count; i++) {
                    DeviceBuffer block = runtime.deviceAllocator(device).allocate(length);
                    blocks.add(block);
                    stream.copyFromHost(Patterns.direct(seed + i, length), block, 0);
                    System.out.println("HANDLE " + runtime.exportIpc(block).toBase64());
                }
            }
            System.out.println("READY");
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line = in.readLine();
            blocks.forEach(DeviceBuffer::close);
            if (!"CLOSE".equals(line)) {
                System.out.println("UNEXPECTED " + line);
                System.exit(4);
            }
        }
        System.out.println("CLOSED");
        System.out.flush();
    }
}
