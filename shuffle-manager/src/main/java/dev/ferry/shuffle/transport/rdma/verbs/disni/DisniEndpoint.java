package dev.ferry.shuffle.transport.rdma.verbs.disni;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.function.Consumer;

import com.ibm.disni.RdmaEndpoint;
import com.ibm.disni.RdmaEndpointGroup;
import com.ibm.disni.util.MemoryUtils;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaConnParam;
import dev.ferry.shuffle.transport.rdma.verbs.ConnectionToken;

import static java.util.Objects.requireNonNull;

/**
 * A plain DiSNI endpoint: Ferry posts READs and polls its own CQ, so no receive buffers and no
 * callbacks. An outgoing one carries its connection token as the connect request's private data:
 * DiSNI's {@code connect} passes {@link #getConnParam()}'s {@code private_data} address and length to
 * {@code rdma_connect}, so this endpoint answers with a parameter block of its own (the group's retry
 * counts plus the token, in native memory it keeps alive) instead of the group's shared one.
 */
final class DisniEndpoint
        extends RdmaEndpoint
{
    private volatile RdmaConnParam connectParam;
    // Referenced so the native memory behind private_data lives as long as the endpoint.
    private ByteBuffer privateData;

    private final Consumer<DisniEndpoint> onDisconnected;

    /** {@code onDisconnected}: told (on DiSNI's CM thread) when the peer disconnects or its device goes away; it must not block. */
    DisniEndpoint(RdmaEndpointGroup<? extends RdmaEndpoint> group, RdmaCmId idPriv, boolean serverSide, Consumer<DisniEndpoint> onDisconnected)
            throws IOException
    {
        super(group, idPriv, serverSide);
        this.onDisconnected = requireNonNull(onDisconnected, "onDisconnected is null");
    }

    @Override
    public synchronized void dispatchCmEvent(RdmaCmEvent cmEvent)
            throws IOException
    {
        super.dispatchCmEvent(cmEvent);
        int event = cmEvent.getEvent();
        if (event == RdmaCmEvent.EventType.RDMA_CM_EVENT_DISCONNECTED.ordinal() || event == RdmaCmEvent.EventType.RDMA_CM_EVENT_DEVICE_REMOVAL.ordinal()) {
            onDisconnected.accept(this);
        }
    }

    /** Makes the next connect carry {@code token}, with the retry counts of {@code groupParam}. */
    void carry(ConnectionToken token, RdmaConnParam groupParam)
            throws IOException
    {
        byte[] data = token.privateData();
        ByteBuffer buffer = ByteBuffer.allocateDirect(data.length);
        buffer.put(data).flip();
        RdmaConnParam param = new RdmaConnParam();
        param.setRetry_count(groupParam.getRetry_count());
        param.setRnr_retry_count(groupParam.getRnr_retry_count());
        param.setPrivate_data(MemoryUtils.getAddress(buffer));
        param.setPrivate_data_len((byte) data.length);
        this.privateData = buffer;
        this.connectParam = param;
    }

    @Override
    public RdmaConnParam getConnParam()
    {
        RdmaConnParam param = connectParam;
        return param != null ? param : super.getConnParam();
    }
}
