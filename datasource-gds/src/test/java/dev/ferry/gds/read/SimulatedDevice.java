package dev.ferry.gds.read;

import dev.ferry.conf.MapConfigSource;
import dev.ferry.device.DeviceRuntime;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.Map;

/**
 * One simulated device runtime (one device, 256 MiB) for a test class, started before its tests
 * and closed after them: {@code @RegisterExtension static final SimulatedDevice device = new SimulatedDevice();}.
 */
final class SimulatedDevice
        implements BeforeAllCallback, AfterAllCallback
{
    private DeviceRuntime runtime;

    @Override
    public void beforeAll(ExtensionContext context)
    {
        runtime = DeviceRuntime.create(new MapConfigSource(Map.of("spark.ferry.device", "simulated", "spark.ferry.device.simulated.capacity", "256m")));
    }

    @Override
    public void afterAll(ExtensionContext context)
    {
        runtime.close();
        runtime = null;
    }

    DeviceRuntime runtime()
    {
        if (runtime == null) {
            throw new IllegalStateException("the simulated device runs only during its test class");
        }
        return runtime;
    }
}
