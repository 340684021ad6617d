package dev.ferry.gds.device;

import dev.ferry.device.DeviceRuntime;
import dev.ferry.device.DeviceStream;

import static java.util.Objects.requireNonNull;

/**
 * Where a decoder writes device-resident Arrow buffers: a runtime's device and the stream the
 * copies or kernels run on. The caller synchronizes the stream before handing buffers on.
 */
public record DeviceTarget(DeviceRuntime runtime, int device, DeviceStream stream)
{
    public DeviceTarget
    {
        requireNonNull(runtime, "runtime is null");
        requireNonNull(stream, "stream is null");
        if (stream.device() != device) {
            throw new IllegalArgumentException("stream of device " + stream.device() + " for a target on device " + device);
        }
    }
}
