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
import java.util.HashMap;
import java.util.Map;

/**
 * A long-lived importer for the books test: opens handles and closes them on command, so the
 * parent can free exported buffers while they are still mapped, over and over, in one child.
 *
 * <p>Argument: backend mode. Commands on stdin: {@code OPEN <id> <handle base64> <seed>} (opens,
 * checks the bytes, answers {@code OPENED <id>}), {@code CLOSE <id>} ({@code CLOSED <id>}),
 * {@code EXIT} ({@code BYE}).
 */
public final class IpcImporterLoop
{
    private IpcImporterLoop() {}

    public static void main(String[] args)
            throws Exception
    {
        Map<String, String> config = Map.of(
                "spark.ferry.device", args[0],
                "spark.ferry.device.simulated.capacity", "1m");
        Map<String, DeviceBuffer> open = new HashMap<>();
        try (DeviceRuntime runtime = DeviceRuntime.create(new MapConfigSource(config))) {
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                String[] command = line.split(" ");
                switch (command[0]) {
                    case "OPEN": {
                        IpcHandle handle = IpcHandle.fromBase64(command[2]);
                        DeviceBuffer imported = runtime.openIpc(handle, handle.device());
                        byte[] expected = Patterns.bytes(Long.parseLong(command[3]), Math.toIntExact(handle.length()));
                        ByteBuffer actual = ByteBuffer.allocateDirect(expected.length);
                        try (DeviceStream stream = runtime.newStream(handle.device())) {
                            stream.copyToHost(imported, 0, actual);
                        }
                        int mismatch = Patterns.firstMismatch(expected, Patterns.toArray(actual.flip()));
                        if (mismatch >= 0) {
                            System.out.println("MISMATCH " + command[1] + " at " + mismatch);
                        }
                        else {
                            open.put(command[1], imported);
                            System.out.println("OPENED " + command[1]);
                        }
                        break;
                    }
                    case "CLOSE":
                        open.remove(command[1]).close();
                        System.out.println("CLOSED " + command[1]);
                        break;
                    case "EXIT":
                        open.values().forEach(DeviceBuffer::close);
                        open.clear();
                        runtime.close();
                        System.out.println("BYE");
                        System.out.flush();
                        return;
                    default:
                        System.out.println("UNEXPECTED " + line);
                }
                System.out.flush();
            }
        }
    }
}
