package dev.ferry.gds.route;

import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.host.HostBackend;

/** Whether this JVM's device runtime can put file bytes on a GPU, and why (not); the runtime in production, a fake in tests. */
@FunctionalInterface
public interface DeviceProbe
{
    DeviceVerdict probe();

    /** A GPU-capable backend ({@code cuda}, {@code simulated}) with at least one device; the {@code host} backend is not one. */
    static DeviceProbe of(DeviceRuntime runtime)
    {
        return () -> {
            boolean available = !HostBackend.NAME.equals(runtime.backendName()) && runtime.deviceCount() > 0;
            return new DeviceVerdict(available, "device backend " + runtime.backendName() + " with " + runtime.deviceCount() + " device(s): "
                    + runtime.selectionReason());
        };
    }
}
