package dev.ferry.shuffle.transport.rdma;

import dev.ferry.shuffle.transport.rdma.verbs.ConnectionToken;
import dev.ferry.shuffle.transport.rdma.verbs.simulated.SimulatedDevice;
import dev.ferry.shuffle.transport.wire.RdmaAdmission;

/**
 * For tests of {@link VerbsBlocks} without the TCP session: the admission a reader would get over
 * it, issued straight by the server's simulated NIC (a token for that reader's host, the NIC's
 * listen address to connect to).
 */
final class DirectAdmitter
{
    private DirectAdmitter() {}

    static VerbsBlocks.Admitter of(SimulatedDevice serverNic)
    {
        return readerNicHost -> {
            ConnectionToken token = serverNic.admissions().issue(1, readerNicHost);
            return new RdmaAdmission(token.privateData(), serverNic.listenAddress().getAddress().getHostAddress(), serverNic.listenAddress().getPort());
        };
    }
}
