package dev.ferry.device;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.memory.DeviceBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Pooled streams, pinned staging of pageable copies, and the shared, reference-counted runtime (simulated backend). */
class TestStreamsAndStaging
{
    private static final int CHUNK = 64 * 1024;

    private static Map<String, String> config(String pinnedLimit)
    {
        Map<String, String> config = new HashMap<>();
        config.put("spark.ferry.device", "simulated");
        config.put("spark.ferry.device.simulated.count", "1");
        config.put("spark.ferry.device.simulated.capacity", "16m");
        config.put("spark.ferry.device.stagingChunk", String.valueOf(CHUNK));
        config.put("spark.ferry.device.pinnedLimit", pinnedLimit);
        return config;
    }

    @Test
    void closedStreamsAreReusedNotRecreated()
    {
        try (DeviceRuntime runtime = DeviceRuntime.create(new MapConfigSource(config("1m")))) {
            for (int i = 0; i < 50; i++) {
                try (DeviceStream stream = runtime.newStream(0)) {
                    stream.synchronize();
                }
            }
            assertEquals(1, runtime.streamsCreated());
            assertEquals(49, runtime.streamsReused());
            try (DeviceStream a = runtime.newStream(0); DeviceStream b = runtime.newStream(0)) {
                assertEquals(2, runtime.streamsCreated(), "two streams open at once are two streams");
            }
        }
    }

    @Test
    void pageableCopiesGoThroughTwoPinnedChunksAndKeepEveryByte()
    {
        int length = 5 * CHUNK + 777;
        byte[] data = new byte[length];
        new Random(17).nextBytes(data);
        try (DeviceRuntime runtime = DeviceRuntime.create(new MapConfigSource(config("1m")))) {
            try (DeviceBuffer device = runtime.deviceAllocator(0).allocate(length); DeviceStream stream = runtime.newStream(0)) {
                stream.copyFromHost(ByteBuffer.wrap(data), device, 0);
                ByteBuffer back = ByteBuffer.allocate(length);
                stream.copyToHost(device, 0, back);
                assertArrayEquals(data, back.array());
                ByteBuffer offset = ByteBuffer.allocate(CHUNK + 5);
                stream.copyToHost(device, CHUNK - 3, offset);
                assertArrayEquals(java.util.Arrays.copyOfRange(data, CHUNK - 3, 2 * CHUNK + 2), offset.array());
                assertEquals(2L * length + CHUNK + 5, runtime.bytesStagedThroughPinned());
                assertEquals(2L * CHUNK, runtime.pinnedAllocator().allocatedBytes(), "one stream, two staging chunks");
            }
            assertEquals(2L * CHUNK, runtime.pinnedAllocator().allocatedBytes(), "the pooled stream keeps its chunks");
        }
    }

    @Test
    void withoutPinnedRoomCopiesStillLandAndTheRefusalIsCounted()
    {
        byte[] data = new byte[3 * CHUNK];
        new Random(3).nextBytes(data);
        try (DeviceRuntime runtime = DeviceRuntime.create(new MapConfigSource(config(String.valueOf(CHUNK))))) {
            try (DeviceBuffer device = runtime.deviceAllocator(0).allocate(data.length); DeviceStream stream = runtime.newStream(0)) {
                stream.copyFromHost(ByteBuffer.wrap(data), device, 0);
                ByteBuffer back = ByteBuffer.allocate(data.length);
                stream.copyToHost(device, 0, back);
                assertArrayEquals(data, back.array());
            }
            assertEquals(1, runtime.stagingRefusals());
            assertEquals(0, runtime.bytesStagedThroughPinned());
            assertEquals(0, runtime.pinnedAllocator().allocatedBytes(), "the first chunk went back when the second did not fit");
        }
    }

    @Test
    void oneSharedRuntimePerSettingsClosedByItsLastHolder()
    {
        MapConfigSource settings = new MapConfigSource(config("1m"));
        DeviceRuntime store = DeviceRuntimes.shared(settings);
        DeviceRuntime reader = DeviceRuntimes.shared(settings);
        assertSame(store, reader, "the shuffle store and the gds reader share one runtime");
        assertEquals(2, store.references());
        Map<String, String> other = config("1m");
        other.put("spark.ferry.device.memoryLimit", "8m");
        DeviceRuntime limited = DeviceRuntimes.shared(new MapConfigSource(other));
        assertNotSame(store, limited, "other device settings, another runtime");
        limited.close();
        store.close();
        try (DeviceBuffer stillOpen = reader.deviceAllocator(0).allocate(4096)) {
            assertTrue(stillOpen.isOpen(), "the reader's reference keeps the runtime open");
        }
        reader.close();
        assertThrows(IllegalStateException.class, () -> reader.deviceAllocator(0));
        DeviceRuntime next = DeviceRuntimes.shared(settings);
        assertNotSame(store, next, "after the last close, a new one");
        next.close();
        assertEquals(0, DeviceRuntimes.sharedOpen());
    }
}
