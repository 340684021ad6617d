package dev.ferry.shuffle.transport.server;

import java.io.IOException;

import dev.ferry.shuffle.transport.wire.RdmaAdmission;
import dev.ferry.shuffle.transport.wire.RdmaAdmissionRequest;

/**
 * Admits a connection's peer to a side channel the TCP session gates (the RDMA route's queue
 * pairs): a one-time admission per request, revoked when the session closes.
 */
public interface SessionAdmissions
{
    RdmaAdmission admit(long session, RdmaAdmissionRequest request)
            throws IOException;

    void sessionClosed(long session);
}
