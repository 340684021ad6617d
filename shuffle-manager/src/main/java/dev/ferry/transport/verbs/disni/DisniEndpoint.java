package dev.ferry.transport.verbs.disni;

import com.ibm.disni.RdmaEndpoint;
import com.ibm.disni.RdmaEndpointGroup;
import com.ibm.disni.verbs.RdmaCmId;

import java.io.IOException;

/** A plain DiSNI endpoint: Ferry posts READs and polls its own CQ, so no receive buffers and no callbacks. */
final class DisniEndpoint
        extends RdmaEndpoint
{
    DisniEndpoint(RdmaEndpointGroup<? extends RdmaEndpoint> group, RdmaCmId idPriv, boolean serverSide)
            throws IOException
    {
        super(group, idPriv, serverSide);
    }
}
