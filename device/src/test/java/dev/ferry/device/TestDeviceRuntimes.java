package dev.ferry.device;

import dev.ferry.common.ErrorCategory;
import dev.ferry.common.FerryException;
import dev.ferry.conf.ConfigDocs;
import dev.ferry.conf.ConfigKeySet;
import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.cuda.CudaAvailability;
import dev.ferry.device.cuda.CudaProbe;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

public class TestDeviceRuntimes
{
    @Test
    public void cudaProbeVerdictIsCachedWithItsReason()
    {
        CudaAvailability first = CudaProbe.availability();
        assertSame(first, CudaProbe.availability());
        assertTrue(!first.reason().isBlank());
    }

    @Test
    public void autoUsesCudaOnlyWhenItLoadsAndOtherwiseHostWithTheReason()
    {
        CudaAvailability cuda = CudaProbe.availability();
        long fallbacksBefore = DeviceRuntimes.autoFallbacksToHost();
        try (DeviceRuntime runtime = DeviceRuntime.create(new MapConfigSource(Map.of("spark.ferry.device", "auto")))) {
            if (cuda.available()) {
                assertEquals("cuda", runtime.backendName());
            }
            else {
                assertEquals("host", runtime.backendName());
                assertTrue(runtime.selectionReason().contains("CUDA unavailable: " + cuda.reason()), runtime.selectionReason());
                assertEquals(fallbacksBefore + 1, DeviceRuntimes.autoFallbacksToHost());
            }
        }
    }

    @Test
    public void explicitCudaFailsClearlyWhereCudaIsUnavailable()
    {
        CudaAvailability cuda = CudaProbe.availability();
        if (cuda.available()) {
            return;
        }
        FerryException failure = assertThrows(FerryException.class, () -> DeviceRuntime.create(new MapConfigSource(Map.of("spark.ferry.device", "cuda"))));
        assertEquals("spark.ferry.device=cuda, but this JVM has no usable CUDA (" + cuda.shortReason() + "): " + cuda.reason()
                + ". Use spark.ferry.device=auto to fall back to the host backend where CUDA is missing.", failure.getMessage());
        assertEquals(ErrorCategory.USER_ERROR, failure.category());
        assertEquals("none (spark.ferry.device=cuda, " + cuda.shortReason() + ")", DeviceRuntimes.describeChoice(new MapConfigSource(Map.of("spark.ferry.device", "cuda"))));
        assertEquals("host (spark.ferry.device=auto, " + cuda.shortReason() + ")", DeviceRuntimes.describeChoice(MapConfigSource.empty()));
        // The probe failed once; asking again gives the same verdict rather than a NoClassDefFoundError.
        assertThrows(FerryException.class, () -> DeviceRuntime.create(new MapConfigSource(Map.of("spark.ferry.device", "cuda"))));
    }

    @Test
    public void badSettingsNameTheKey()
    {
        IllegalArgumentException mode = assertThrows(IllegalArgumentException.class, () -> DeviceRuntime.create(new MapConfigSource(Map.of("spark.ferry.device", "gpu"))));
        assertTrue(mode.getMessage().contains("spark.ferry.device must be one of auto|cuda|simulated|host"), mode.getMessage());
        FerryException capacity = assertThrows(FerryException.class, () -> DeviceRuntime.create(new MapConfigSource(Map.of(
                "spark.ferry.device", "simulated", "spark.ferry.device.simulated.capacity", "3g"))));
        assertTrue(capacity.getMessage().contains("spark.ferry.device.simulated.capacity"), capacity.getMessage());
    }

    @Test
    public void deviceKeysAreRegisteredOnceForTheDocumentation()
    {
        ConfigKeySet device = ConfigDocs.allSets().stream().filter(set -> set.section().equals("Device runtime")).findFirst().orElseThrow();
        assertTrue(device.keys().contains(DeviceConfigKeys.DEVICE));
        assertTrue(device.keys().contains(DeviceConfigKeys.MEMORY_LIMIT));
        assertTrue(ConfigDocs.markdown().contains("`spark.ferry.device.pool.hostTierLimit`"));
    }
}
