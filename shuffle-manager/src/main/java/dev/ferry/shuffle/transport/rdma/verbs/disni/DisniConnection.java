package dev.ferry.shuffle.transport.rdma.verbs.disni;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.SVCPollCq;
import com.ibm.disni.verbs.SVCPostSend;
import dev.ferry.shuffle.transport.rdma.verbs.Completion;
import dev.ferry.shuffle.transport.rdma.verbs.CompletionStatus;
import dev.ferry.shuffle.transport.rdma.verbs.ReadRequest;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsConnection;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.util.Objects.requireNonNull;

/**
 * One DiSNI RC connection from a passive group: its own CQ, polled here with one cached
 * {@code SVCPollCq} (each SVC allocates native memory). Only {@code wr_id} and status of a polled
 * completion are used: on errors DiSNI copies nothing else.
 */
final class DisniConnection
        implements VerbsConnection
{
    private static final Logger log = LoggerFactory.getLogger(DisniConnection.class);

    private final int id;
    private final InetSocketAddress peer;
    private final DisniEndpoint endpoint;
    private final IbvWC[] completions;
    private final SVCPollCq pollCall;
    private final Consumer<DisniConnection> onClose;
    private final ArrayDeque<Completion> backlog = new ArrayDeque<>();
    private final AtomicBoolean closed = new AtomicBoolean();

    DisniConnection(int id, InetSocketAddress peer, DisniEndpoint endpoint, int pollBatch, Consumer<DisniConnection> onClose)
            throws IOException
    {
        this.id = id;
        this.peer = requireNonNull(peer, "peer is null");
        this.endpoint = requireNonNull(endpoint, "endpoint is null");
        this.onClose = requireNonNull(onClose, "onClose is null");
        this.completions = new IbvWC[pollBatch];
        for (int i = 0; i < pollBatch; i++) {
            completions[i] = new IbvWC();
        }
        this.pollCall = endpoint.getCqProvider().getCQ().poll(completions, pollBatch);
    }

    @Override
    public int id()
    {
        return id;
    }

    @Override
    public InetSocketAddress peer()
    {
        return peer;
    }

    @Override
    public boolean isOpen()
    {
        return !closed.get();
    }

    @Override
    public synchronized void postReads(List<ReadRequest> requests)
            throws VerbsException
    {
        if (closed.get()) {
            throw new VerbsException("Trying to post send on closed QP " + id + " to " + peer);
        }
        List<IbvSendWR> workRequests = new ArrayList<>(requests.size());
        for (ReadRequest request : requests) {
            IbvSge sge = new IbvSge();
            sge.setAddr(request.localAddress());
            sge.setLength(request.length());
            sge.setLkey(request.lkey());
            LinkedList<IbvSge> scatter = new LinkedList<>();
            scatter.add(sge);
            IbvSendWR workRequest = new IbvSendWR();
            workRequest.setWr_id(request.wrId());
            workRequest.setOpcode(IbvSendWR.IBV_WR_RDMA_READ);
            workRequest.setSend_flags(request.signaled() ? IbvSendWR.IBV_SEND_SIGNALED : 0);
            workRequest.getRdma().setRemote_addr(request.remoteAddress());
            workRequest.getRdma().setRkey(request.rkey());
            // setSg_list, not getSg_list().add: only the setter updates num_sge.
            workRequest.setSg_list(scatter);
            workRequests.add(workRequest);
        }
        SVCPostSend call = null;
        try {
            call = endpoint.postSend(workRequests);
            call.execute();
        }
        catch (IOException e) {
            throw new VerbsException("ibv_post_send of " + requests.size() + " READ(s) to " + peer + " failed: " + e.getMessage(), e);
        }
        finally {
            if (call != null) {
                call.free();
            }
        }
    }

    @Override
    public synchronized List<Completion> poll(int max)
            throws VerbsException
    {
        if (closed.get()) {
            return List.of();
        }
        try {
            if (backlog.isEmpty()) {
                int polled = pollCall.execute().getPolls();
                // The IbvWC array is reused by the next poll, so the values are copied out now.
                for (int i = 0; i < polled; i++) {
                    IbvWC completion = completions[i];
                    backlog.add(new Completion(completion.getWr_id(), CompletionStatus.fromRaw(completion.getStatus()), completion.getByte_len()));
                }
            }
            List<Completion> result = new ArrayList<>(Math.min(max, backlog.size()));
            while (result.size() < max && !backlog.isEmpty()) {
                result.add(backlog.poll());
            }
            return result;
        }
        catch (IOException e) {
            throw new VerbsException("ibv_poll_cq on the connection to " + peer + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void close()
    {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        synchronized (this) {
            pollCall.free();
        }
        try {
            endpoint.close();
        }
        catch (IOException e) {
            log.warn("Closing the RDMA connection to {} failed: {}", peer, e.toString());
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        onClose.accept(this);
    }
}
