package dev.ferry.shuffle.transport.rdma.verbs.simulated;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import dev.ferry.shuffle.transport.rdma.verbs.Completion;
import dev.ferry.shuffle.transport.rdma.verbs.CompletionStatus;
import dev.ferry.shuffle.transport.rdma.verbs.ReadRequest;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsConnection;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsException;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsSettings;

import static java.util.Objects.requireNonNull;

/**
 * The requester side of a simulated queue pair. A worker thread plays the NIC: it takes posted
 * READs in order, checks the local scatter entry, sends up to {@code maxOutstandingReads} READs
 * ahead, and turns each answer into a completion in post order. Rules kept from real hardware:
 * <ul>
 * <li>success completes only when SIGNALED; errors always complete;</li>
 * <li>an unsignaled READ holds its send-queue slot until a later completion;</li>
 * <li>the first error moves the QP to the error state: everything after it completes with
 *     {@code WR_FLUSH_ERR};</li>
 * <li>data lands in the sink only at completion, and only while the sink is still registered;</li>
 * <li>a CQ that is not polled in time overruns and is dead from then on.</li>
 * </ul>
 */
final class SimulatedConnection
        implements VerbsConnection
{
    private static final ReadRequest STOP = new ReadRequest(-1, 0, 0, 0, 0, 1, false);

    private final int id;
    private final InetSocketAddress peer;
    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;
    private final SimulatedProtectionDomain protectionDomain;
    private final VerbsSettings settings;
    private final Consumer<SimulatedConnection> onClose;
    private final LinkedBlockingQueue<ReadRequest> posted = new LinkedBlockingQueue<>();
    private final ArrayDeque<Completion> completionQueue = new ArrayDeque<>();
    private final Thread worker;

    // Guarded by this.
    private int slotsInUse;
    private int unsignaledHeld;
    private boolean completionQueueOverrun;
    private volatile boolean closed;
    // Worker thread only.
    private boolean errorState;
    private boolean transportBroken;
    private byte[] scratch = new byte[0];

    private record InFlight(ReadRequest request, boolean sent, CompletionStatus presetStatus, SimulatedRegion sink) {}

    SimulatedConnection(int id, InetSocketAddress peer, Socket socket, DataInputStream in, DataOutputStream out,
            SimulatedProtectionDomain protectionDomain, VerbsSettings settings, Consumer<SimulatedConnection> onClose)
    {
        this.id = id;
        this.peer = requireNonNull(peer, "peer is null");
        this.socket = requireNonNull(socket, "socket is null");
        this.in = requireNonNull(in, "in is null");
        this.out = requireNonNull(out, "out is null");
        this.protectionDomain = requireNonNull(protectionDomain, "protectionDomain is null");
        this.settings = requireNonNull(settings, "settings is null");
        this.onClose = requireNonNull(onClose, "onClose is null");
        this.worker = new Thread(this::work, "ferry-simverbs-qp-" + id);
        worker.setDaemon(true);
        worker.start();
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
        return !closed;
    }

    @Override
    public void postReads(List<ReadRequest> requests)
            throws VerbsException
    {
        requireNonNull(requests, "requests is null");
        int index = 0;
        for (ReadRequest request : requests) {
            synchronized (this) {
                if (closed) {
                    throw new VerbsException("Trying to post send on closed QP " + id + " to " + peer + " (posted " + index + " of " + requests.size() + ")");
                }
                if (slotsInUse >= settings.queueDepth()) {
                    throw new VerbsException("Cannot allocate memory: the send queue of QP " + id + " to " + peer + " has all " + settings.queueDepth()
                            + " slots in use (unsignaled requests keep theirs until a signaled one completes); posted " + index + " of " + requests.size());
                }
                slotsInUse++;
            }
            posted.add(requireNonNull(request, "request is null"));
            index++;
        }
    }

    @Override
    public synchronized List<Completion> poll(int max)
            throws VerbsException
    {
        if (completionQueueOverrun) {
            throw new VerbsException("Completion queue of QP " + id + " to " + peer + " overran (IBV_EVENT_CQ_ERR): more than "
                    + settings.completionQueueSize() + " completions were left unpolled");
        }
        List<Completion> polled = new ArrayList<>(Math.min(max, completionQueue.size()));
        while (polled.size() < max && !completionQueue.isEmpty()) {
            polled.add(completionQueue.poll());
        }
        return polled;
    }

    /** Slots held by posted requests that have not completed (or, unsignaled, not been covered by a later completion). */
    synchronized int slotsInUse()
    {
        return slotsInUse;
    }

    private void work()
    {
        ArrayDeque<InFlight> inFlight = new ArrayDeque<>();
        try {
            while (true) {
                while (inFlight.size() < settings.maxOutstandingReads()) {
                    ReadRequest next = inFlight.isEmpty() ? posted.poll(50, TimeUnit.MILLISECONDS) : posted.poll();
                    if (next == null || next == STOP) {
                        break;
                    }
                    inFlight.add(start(next));
                }
                if (closed) {
                    break;
                }
                if (!inFlight.isEmpty()) {
                    finish(inFlight.removeFirst());
                }
            }
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // Disconnect: everything still queued is flushed, as a QP moved to the error state flushes its send queue.
        errorState = true;
        for (InFlight flight : inFlight) {
            complete(flight.request(), CompletionStatus.WR_FLUSH_ERR, 0);
        }
        ReadRequest request;
        while ((request = posted.poll()) != null) {
            if (request != STOP) {
                complete(request, CompletionStatus.WR_FLUSH_ERR, 0);
            }
        }
    }

    private InFlight start(ReadRequest request)
    {
        if (errorState) {
            return new InFlight(request, false, CompletionStatus.WR_FLUSH_ERR, null);
        }
        if (request.length() > FabricWire.MAX_MESSAGE_BYTES) {
            return new InFlight(request, false, CompletionStatus.LOC_LEN_ERR, null);
        }
        SimulatedRegion sink = protectionDomain.localSink(request.localAddress(), request.lkey(), request.length());
        if (sink == null) {
            return new InFlight(request, false, CompletionStatus.LOC_PROT_ERR, null);
        }
        if (transportBroken) {
            return new InFlight(request, false, CompletionStatus.RETRY_EXC_ERR, sink);
        }
        try {
            out.writeByte(FabricWire.READ);
            out.writeLong(request.wrId());
            out.writeLong(request.remoteAddress());
            out.writeInt(request.rkey());
            out.writeInt(request.length());
            out.flush();
            return new InFlight(request, true, CompletionStatus.SUCCESS, sink);
        }
        catch (IOException e) {
            transportBroken = true;
            return new InFlight(request, false, CompletionStatus.RETRY_EXC_ERR, sink);
        }
    }

    private void finish(InFlight flight)
    {
        ReadRequest request = flight.request();
        CompletionStatus status = flight.presetStatus();
        if (flight.sent()) {
            status = receive(request);
        }
        if (errorState) {
            // An error earlier in the queue flushes this one, whatever its own fate would have been.
            complete(request, CompletionStatus.WR_FLUSH_ERR, 0);
            return;
        }
        if (status == CompletionStatus.SUCCESS) {
            if (!protectionDomain.isRegistered(flight.sink())) {
                status = CompletionStatus.LOC_PROT_ERR;
            }
            else {
                flight.sink().write(request.localAddress(), scratch, 0, request.length());
            }
        }
        complete(request, status, status == CompletionStatus.SUCCESS ? request.length() : 0);
    }

    /** Reads the answer to {@code request} into {@link #scratch}; a dead or silent peer is {@code RETRY_EXC_ERR}. */
    private CompletionStatus receive(ReadRequest request)
    {
        if (transportBroken) {
            return CompletionStatus.RETRY_EXC_ERR;
        }
        try {
            byte op = in.readByte();
            long wrId = in.readLong();
            if (wrId != request.wrId()) {
                transportBroken = true;
                return CompletionStatus.BAD_RESP_ERR;
            }
            if (op == FabricWire.READ_NAK) {
                return CompletionStatus.fromRaw(in.readByte());
            }
            if (op != FabricWire.READ_DATA) {
                transportBroken = true;
                return CompletionStatus.BAD_RESP_ERR;
            }
            if (scratch.length < request.length()) {
                scratch = new byte[request.length()];
            }
            in.readFully(scratch, 0, request.length());
            return CompletionStatus.SUCCESS;
        }
        catch (IOException e) {
            transportBroken = true;
            // Our own disconnect flushes; a peer that died or fell silent exhausts the transport retries.
            return closed ? CompletionStatus.WR_FLUSH_ERR : CompletionStatus.RETRY_EXC_ERR;
        }
    }

    private synchronized void complete(ReadRequest request, CompletionStatus status, int byteLength)
    {
        if (status != CompletionStatus.SUCCESS) {
            errorState = true;
        }
        if (status == CompletionStatus.SUCCESS && !request.signaled()) {
            unsignaledHeld++;
            return;
        }
        slotsInUse -= 1 + unsignaledHeld;
        unsignaledHeld = 0;
        if (completionQueue.size() >= settings.completionQueueSize()) {
            completionQueueOverrun = true;
            return;
        }
        completionQueue.add(new Completion(request.wrId(), status, byteLength));
    }

    /** Disconnects; outstanding and queued READs complete with {@code WR_FLUSH_ERR}. Waits at most 5 s for the worker. */
    @Override
    public void close()
    {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        posted.add(STOP);
        try {
            socket.close();
        }
        catch (IOException ignored) {
            // The worker sees the closed socket either way.
        }
        try {
            worker.join(5000);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        onClose.accept(this);
    }

    @Override
    public String toString()
    {
        return "simulated QP " + id + " to " + peer;
    }
}
