package dev.ferry.device.contract;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceStream;
import dev.ferry.device.IpcHandle;
import dev.ferry.device.memory.DeviceBuffer;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The other executor in the two-process IPC test: opens the parent's handle, checks the bytes,
 * writes a reply pattern into the shared memory, and closes when the parent says so.
 *
 * <p>Arguments: backend mode, handle (base64), seed of the expected bytes, seed of the reply.
 * Protocol on stdout: {@code VERIFIED}, then after {@code CLOSE} on stdin, {@code CLOSED}.
 */
public final class IpcChildProcess
{
    static final int REPLY_LENGTH = 4096;

    private IpcChildProcess() {}

    public static void main(String[] args)
            throws Exception
    {
        String mode = args[0];
        IpcHandle handle = IpcHandle.fromBase64(args[1]);
        long expectedSeed = Long.parseLong(args[2]);
        long replySeed = Long.parseLong(args[3]);
        Map<String, String> config = Map.of(
                "spark.ferry.device", mode,
                "spark.ferry.device.simulated.capacity", "1m");
        try (DeviceRuntime runtime = DeviceRuntime.create(new MapConfigSource(config))) {
            DeviceBuffer imported = runtime.openIpc(handle, handle.device());
            byte[] expected = Patterns.bytes(expectedSeed, Math.toIntExact(handle.length()));
            ByteBuffer actual = ByteBuffer.allocateDirect(expected.length);
            try (DeviceStream stream = runtime.newStream(handle.device())) {
                stream.copyToHost(imported, 0, actual);
                int mismatch = Patterns.firstMismatch(expected, Patterns.toArray(actual.flip()));
                if (mismatch >= 0) {
                    System.out.println("MISMATCH at " + mismatch);
                    System.exit(3);
                }
                stream.copyFromHost(Patterns.direct(replySeed, REPLY_LENGTH), imported, 0);
                stream.synchronize();
            }
            System.out.println("VERIFIED");
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line = in.readLine();
            if (!"CLOSE".equals(line)) {
                System.out.println("UNEXPECTED " + line);
                System.exit(4);
            }
            imported.close();
        }
        System.out.println("CLOSED");
        System.out.flush();
    }
}
