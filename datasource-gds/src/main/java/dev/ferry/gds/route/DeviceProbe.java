package dev.ferry.gds.route;

import dev.ferry.device.cuda.CudaAvailability;
import dev.ferry.device.cuda.CudaProbe;

/** Whether this JVM can reach a GPU, and why (not); the CUDA probe in production, a fake in tests. */
@FunctionalInterface
public interface DeviceProbe
{
    DeviceVerdict probe();

    /** The device runtime's cached CUDA probe. */
    static DeviceProbe cuda()
    {
        return () -> {
            CudaAvailability availability = CudaProbe.availability();
            return new DeviceVerdict(availability.available(), availability.reason());
        };
    }
}
