package dev.ferry.shuffle.transport.rdma.verbs.disni;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import com.ibm.disni.RdmaPassiveEndpointGroup;
import dev.ferry.shuffle.transport.rdma.verbs.ConnectionAdmissions;

import static java.util.Objects.requireNonNull;

/**
 * DiSNI's passive group with an admission check where a queue pair would be made. An accepted
 * connect request reaches {@code allocateResources} (QP and CQ creation) before {@code rdma_accept};
 * a request the device's {@link ConnectionAdmissions} refuse fails there, so it never gets a queue
 * pair, and the accept loop closes its endpoint ({@link #pollRefused}). DiSNI 2.1 does not hand the
 * accept path the request's private data (its CM event carries an empty {@code RdmaConnParam}), so
 * the check here is {@link ConnectionAdmissions#admitByAddress}: one queue pair per admission a
 * reader asked for over its authenticated TCP session, from the NIC address it named, while the
 * admission lives. Never run on RDMA hardware here.
 */
final class GatedEndpointGroup
        extends RdmaPassiveEndpointGroup<DisniEndpoint>
{
    private final ConnectionAdmissions admissions;
    private final Queue<DisniEndpoint> refused = new ConcurrentLinkedQueue<>();

    GatedEndpointGroup(int timeoutMillis, int maxWorkRequests, int maxSge, int cqSize, ConnectionAdmissions admissions)
            throws IOException
    {
        super(timeoutMillis, maxWorkRequests, maxSge, cqSize);
        this.admissions = requireNonNull(admissions, "admissions is null");
    }

    @Override
    public void allocateResources(DisniEndpoint endpoint)
            throws Exception
    {
        if (endpoint.isServerSide()) {
            String host = peerHost(endpoint);
            if (host == null ? !admissions.admit(null, "unknown peer") : !admissions.admitByAddress(host)) {
                refused.add(endpoint);
                throw new IOException("RDMA connect request from " + (host == null ? "an unknown peer" : host) + " not admitted");
            }
        }
        super.allocateResources(endpoint);
    }

    /** An endpoint refused since the last call, for the accept loop to close; null when none. */
    DisniEndpoint pollRefused()
    {
        return refused.poll();
    }

    private static String peerHost(DisniEndpoint endpoint)
    {
        try {
            SocketAddress address = endpoint.getDstAddr();
            return address instanceof InetSocketAddress ? ((InetSocketAddress) address).getAddress().getHostAddress() : null;
        }
        catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
