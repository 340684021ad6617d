package dev.ferry.shuffle.transport.rdma.verbs.disni;

import java.io.IOException;

import com.ibm.disni.verbs.RdmaEventChannel;
import com.ibm.disni.verbs.RdmaProvider;

/**
 * Touches DiSNI's native side: loads {@code libdisni} (through {@code RdmaProvider}'s native
 * dispatcher) and opens and destroys an RDMA CM event channel, which fails with an
 * {@code IOException} when the library loads but no RDMA device or driver is present. Only
 * {@link DisniProbe} calls this, by reflection; whatever it throws becomes the cached reason.
 */
public final class DisniNativeProbe
{
    private DisniNativeProbe() {}

    public static String probe()
            throws IOException
    {
        int version = RdmaProvider.provider().getVersion();
        RdmaEventChannel channel = RdmaEventChannel.createEventChannel();
        try {
            return "libdisni loaded (native version " + version + "), RDMA CM event channel opened";
        }
        finally {
            channel.destroyEventChannel();
        }
    }
}
