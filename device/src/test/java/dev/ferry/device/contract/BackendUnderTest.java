package dev.ferry.device.contract;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.cuda.CudaAvailability;
import dev.ferry.device.cuda.CudaProbe;
import org.junit.jupiter.api.Assumptions;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The backends the contract suite runs against. {@code -Dspark.ferry.device=cuda} (as
 * scripts/gpu-check.sh passes) narrows the suite to one backend; CUDA is skipped with the probe's
 * reason where no GPU is usable.
 */
public enum BackendUnderTest
{
    SIMULATED("simulated"),
    HOST("host"),
    CUDA("cuda");

    // Small simulated GPUs keep the shared-memory footprint and commit time of each test low.
    static final long CAPACITY = 64L << 20;

    private final String mode;

    BackendUnderTest(String mode)
    {
        this.mode = mode;
    }

    public String mode()
    {
        return mode;
    }

    public Map<String, String> config()
    {
        Map<String, String> config = new HashMap<>();
        config.put("spark.ferry.device", mode);
        config.put("spark.ferry.device.debug.allocationSites", "true");
        config.put("spark.ferry.device.pinnedLimit", "64m");
        if (this == SIMULATED) {
            config.put("spark.ferry.device.simulated.count", "2");
            config.put("spark.ferry.device.simulated.capacity", String.valueOf(CAPACITY));
        }
        else {
            config.put("spark.ferry.device.memoryLimit", String.valueOf(CAPACITY));
        }
        return config;
    }

    /** A fresh runtime; skips the test (with the probe's reason) when this is CUDA and none is usable. */
    public DeviceRuntime open()
    {
        return open(Map.of());
    }

    public DeviceRuntime open(Map<String, String> overrides)
    {
        if (this == CUDA) {
            CudaAvailability cuda = CudaProbe.availability();
            Assumptions.assumeTrue(cuda.available(), () -> "CUDA unavailable: " + cuda.reason());
        }
        Map<String, String> config = config();
        config.putAll(overrides);
        return DeviceRuntime.create(new MapConfigSource(config));
    }

    /** Every backend, or only the one named by the system property {@code spark.ferry.device}. */
    public static List<BackendUnderTest> selected()
    {
        String only = System.getProperty("spark.ferry.device", "").trim().toLowerCase(Locale.ROOT);
        return Arrays.stream(values())
                .filter(backend -> only.isEmpty() || only.equals("auto") || backend.mode.equals(only))
                .collect(Collectors.toList());
    }

    @Override
    public String toString()
    {
        return mode;
    }
}
