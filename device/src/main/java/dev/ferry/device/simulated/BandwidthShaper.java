package dev.ferry.device.simulated;

import dev.ferry.device.CopyRoute;
import dev.ferry.device.host.CopyShaper;
import dev.ferry.topology.model.PathClass;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * Stretches simulated copies to the bandwidth of their link class, so a test can observe that a
 * peer copy over NVLink is faster than one across sockets. Host-device copies use the PCIe rate;
 * peer copies use the rate of the configured topology path class. A copy that already took longer
 * than its budget is not slowed further.
 */
final class BandwidthShaper
        implements CopyShaper
{
    private final Map<CopyRoute, Double> gigabytesPerSecond = new EnumMap<>(CopyRoute.class);

    BandwidthShaper(PathClass peerPath, double nvlink, double pcie, double sys, double local)
    {
        gigabytesPerSecond.put(CopyRoute.HOST_TO_DEVICE, pcie);
        gigabytesPerSecond.put(CopyRoute.DEVICE_TO_HOST, pcie);
        // The exporter GPU's D->H over its own PCIe link: the same link class as a local D->H.
        gigabytesPerSecond.put(CopyRoute.PEER_DEVICE_TO_HOST, pcie);
        gigabytesPerSecond.put(CopyRoute.PEER, peerRate(peerPath, nvlink, pcie, sys, local));
        gigabytesPerSecond.put(CopyRoute.DEVICE_TO_DEVICE, local);
        gigabytesPerSecond.put(CopyRoute.HOST_TO_HOST, 0.0);
    }

    private static double peerRate(PathClass path, double nvlink, double pcie, double sys, double local)
    {
        switch (path) {
            case SELF:
                return local;
            case NVLINK:
                return nvlink;
            case PIX:
            case PXB:
            case PHB:
            case NODE:
                return pcie;
            case SYS:
                return sys;
        }
        throw new IllegalArgumentException("Unhandled path class " + path);
    }

    double rate(CopyRoute route)
    {
        return gigabytesPerSecond.get(route);
    }

    @Override
    public void pace(CopyRoute route, long bytes, long startNanos)
    {
        double rate = gigabytesPerSecond.get(route);
        if (rate <= 0) {
            return;
        }
        // GB/s is bytes per nanosecond.
        long deadline = startNanos + (long) (bytes / rate);
        long remaining;
        while ((remaining = deadline - System.nanoTime()) > 0) {
            LockSupport.parkNanos(remaining);
        }
    }
}
