package dev.ferry.shuffle.transport.rdma.verbs.simulated;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.ferry.shuffle.transport.InjectedFault;
import dev.ferry.shuffle.transport.rdma.verbs.CompletionStatus;
import dev.ferry.shuffle.transport.rdma.verbs.ConnectionAdmissions;
import dev.ferry.shuffle.transport.rdma.verbs.ConnectionToken;
import dev.ferry.shuffle.transport.rdma.verbs.ProtectionDomain;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsConnection;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsDevice;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsException;
import dev.ferry.shuffle.transport.rdma.verbs.VerbsSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.util.Objects.requireNonNull;

/**
 * A simulated RDMA device. Its "NIC" is a loopback TCP listener: a peer's connection is a queue
 * pair, and every READ that arrives on it is answered from the region table alone, with no
 * application handler, so the peer reads across processes exactly what a real one-sided READ
 * could read and nothing else. Like a real listener it accepts a queue pair only with a connection
 * token its {@link ConnectionAdmissions} issued (in the CM request's private data): an absent,
 * forged, reused or expired one is rejected before the queue pair exists, and reads nothing.
 * Thread-safe.
 * <p>Test hook: {@link SimulatedNicOptions#faults()} may spoil one READ this responder serves
 * (a flipped byte, a cut-short transfer, a stale rkey, a dead NIC or process); off by default.
 */
public final class SimulatedDevice
        implements VerbsDevice
{
    private static final Logger log = LoggerFactory.getLogger(SimulatedDevice.class);
    private static final AtomicInteger NEXT_CONNECTION_ID = new AtomicInteger();

    private final String name;
    private final VerbsSettings settings;
    private final SimulatedNicOptions options;
    private final SimulatedProtectionDomain protectionDomain;
    private final ConnectionAdmissions admissions;
    private final AtomicInteger acceptedQueuePairs = new AtomicInteger();
    private final AtomicLong servedBytes = new AtomicLong();
    private final ServerSocket listener;
    private final Set<Socket> responderSockets = ConcurrentHashMap.newKeySet();
    private final Set<SimulatedConnection> connections = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();

    SimulatedDevice(String name, InetSocketAddress listenAddress, VerbsSettings settings, SimulatedNicOptions options)
            throws VerbsException
    {
        this.name = requireNonNull(name, "name is null");
        this.settings = requireNonNull(settings, "settings is null");
        this.options = requireNonNull(options, "options is null");
        this.protectionDomain = new SimulatedProtectionDomain(name, options, settings.maxRegionBytes());
        // A token lives as long as a connect may take: the reader asks for it right before connecting.
        this.admissions = new ConnectionAdmissions(settings.connectTimeout());
        try {
            this.listener = new ServerSocket();
            listener.bind(requireNonNull(listenAddress, "listenAddress is null"), 128);
        }
        catch (IOException e) {
            throw new VerbsException("Cannot open simulated device " + name + " on " + listenAddress + ": " + e.getMessage(), e);
        }
        Thread acceptor = new Thread(this::acceptLoop, "ferry-simverbs-accept-" + name);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    @Override
    public String name()
    {
        return name;
    }

    @Override
    public InetSocketAddress listenAddress()
    {
        return (InetSocketAddress) listener.getLocalSocketAddress();
    }

    @Override
    public ProtectionDomain protectionDomain()
    {
        return protectionDomain;
    }

    @Override
    public ConnectionAdmissions admissions()
    {
        return admissions;
    }

    /** Queue pairs this listener accepted (for tests: a refused connect request makes none). */
    public int acceptedQueuePairs()
    {
        return acceptedQueuePairs.get();
    }

    /** Bytes READ out of this device's registered memory by peers (for tests: an un-admitted peer reads 0). */
    public long servedBytes()
    {
        return servedBytes.get();
    }

    /** Regions currently registered (for tests and leak checks). */
    public int registeredRegions()
    {
        return protectionDomain.registeredRegions();
    }

    @Override
    public int openEndpoints()
    {
        // A responder's socket leaves the set when its requester disconnects or departs (EOF), as a
        // real listener's queue pair goes with its peer's DISCONNECTED event.
        return connections.size() + responderSockets.size();
    }

    /** Regions registered since the device opened, live or not: one {@code ibv_reg_mr} each on a real NIC. */
    public long regionRegistrations()
    {
        return protectionDomain.regionRegistrations();
    }

    public long bar1Used(int device)
    {
        return protectionDomain.bar1Used(device);
    }

    @Override
    public VerbsConnection connect(InetSocketAddress peer, Duration deadline, ConnectionToken token)
            throws VerbsException
    {
        requireNonNull(peer, "peer is null");
        requireNonNull(deadline, "deadline is null");
        requireNonNull(token, "token is null");
        byte[] privateData = token.privateData();
        checkOpen();
        long deadlineNanos = System.nanoTime() + deadline.toNanos();
        Socket socket = new Socket();
        boolean success = false;
        try {
            socket.setTcpNoDelay(true);
            socket.connect(peer, remainingMillis(deadlineNanos, peer, deadline));
            socket.setSoTimeout(remainingMillis(deadlineNanos, peer, deadline));
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
            DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
            out.writeInt(FabricWire.MAGIC);
            out.writeByte(FabricWire.CM_REQUEST);
            out.writeUTF(name);
            out.writeByte(privateData.length);
            out.write(privateData);
            out.flush();
            byte reply = in.readByte();
            if (reply == FabricWire.CM_REJECT) {
                throw new VerbsException("Connect to " + peer + " was rejected (RDMA_CM_EVENT_REJECTED): " + in.readUTF());
            }
            if (reply != FabricWire.CM_ACCEPT) {
                throw new VerbsException("Connect to " + peer + " failed: unexpected CM reply " + reply);
            }
            // From here on, silence longer than the connect timeout is what a real QP reports as RETRY_EXC_ERR.
            socket.setSoTimeout(Math.toIntExact(Math.max(1, settings.connectTimeout().toMillis())));
            int id = NEXT_CONNECTION_ID.getAndIncrement() & 0xFFFF;
            SimulatedConnection connection = new SimulatedConnection(id, peer, socket, in, out, protectionDomain, settings, connections::remove);
            connections.add(connection);
            success = true;
            return connection;
        }
        catch (SocketTimeoutException e) {
            throw new VerbsException("Connect to " + peer + " from " + name + " timed out after " + deadline.toMillis() + " ms (no connection-manager reply); endpoint closed", e);
        }
        catch (VerbsException e) {
            throw e;
        }
        catch (IOException e) {
            throw new VerbsException("Connect to " + peer + " from " + name + " failed (RDMA_CM_EVENT_UNREACHABLE): " + e.getMessage(), e);
        }
        finally {
            if (!success) {
                closeQuietly(socket);
            }
        }
    }

    private static int remainingMillis(long deadlineNanos, InetSocketAddress peer, Duration deadline)
            throws SocketTimeoutException
    {
        long remaining = (deadlineNanos - System.nanoTime()) / 1_000_000;
        if (remaining <= 0) {
            throw new SocketTimeoutException("deadline of " + deadline.toMillis() + " ms to " + peer + " passed");
        }
        return Math.toIntExact(Math.min(Integer.MAX_VALUE, remaining));
    }

    private void acceptLoop()
    {
        while (!closed.get()) {
            Socket socket;
            try {
                socket = listener.accept();
            }
            catch (IOException e) {
                if (!closed.get()) {
                    log.warn("Simulated device {} stopped accepting: {}", name, e.toString());
                }
                return;
            }
            responderSockets.add(socket);
            Thread responder = new Thread(() -> respond(socket), "ferry-simverbs-respond-" + name);
            responder.setDaemon(true);
            responder.start();
        }
    }

    /** The NIC's responder side of one queue pair: CM handshake, then READs answered from the region table only. */
    private void respond(Socket socket)
    {
        try {
            socket.setTcpNoDelay(true);
            DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream(), 1 << 16));
            if (in.readInt() != FabricWire.MAGIC || in.readByte() != FabricWire.CM_REQUEST) {
                return;
            }
            String requester = in.readUTF();
            int privateDataLength = in.readUnsignedByte();
            if (privateDataLength > ConnectionToken.MAX_PRIVATE_DATA_BYTES) {
                // RDMA CM caps an RC connect request's private data; a longer one is not a request a real NIC could receive.
                admissions.admit(null, host(socket));
                return;
            }
            byte[] privateData = new byte[privateDataLength];
            in.readFully(privateData);
            switch (options.cmFault()) {
                case DROP:
                    // Say nothing and hold the socket until the requester gives up or this device closes.
                    while (in.read() >= 0) {
                        // discard
                    }
                    return;
                case REJECT:
                    out.writeByte(FabricWire.CM_REJECT);
                    out.writeUTF("simulated reject by " + name);
                    out.flush();
                    return;
                case NONE:
                    break;
            }
            if (!admissions.admit(privateData, host(socket))) {
                // Rejected before a queue pair exists: nothing of the region table is reachable from this socket.
                out.writeByte(FabricWire.CM_REJECT);
                out.writeUTF("connection not admitted by " + name);
                out.flush();
                return;
            }
            acceptedQueuePairs.incrementAndGet();
            out.writeByte(FabricWire.CM_ACCEPT);
            out.flush();
            byte[] scratch = new byte[0];
            while (true) {
                byte op;
                try {
                    op = in.readByte();
                }
                catch (EOFException e) {
                    return;
                }
                if (op != FabricWire.READ) {
                    log.warn("Simulated device {}: dropping queue pair from {} after unknown operation {}", name, requester, op);
                    return;
                }
                long wrId = in.readLong();
                long address = in.readLong();
                int rkey = in.readInt();
                int length = in.readInt();
                if (length <= 0 || length > FabricWire.MAX_MESSAGE_BYTES) {
                    writeNak(out, wrId, CompletionStatus.REM_INV_REQ_ERR);
                    continue;
                }
                if (scratch.length < length) {
                    scratch = new byte[length];
                }
                InjectedFault fault = options.faults().next(name, wrId, rkey, address, length);
                if (fault == InjectedFault.STALE_KEY) {
                    protectionDomain.revoke(rkey);
                }
                else if (fault == InjectedFault.PEER_DIES) {
                    close();
                    return;
                }
                else if (fault == InjectedFault.PROCESS_DIES) {
                    // A dead host answers nothing and closes nothing gracefully.
                    Runtime.getRuntime().halt(137);
                }
                CompletionStatus status = protectionDomain.serveRead(address, rkey, length, scratch);
                if (status != CompletionStatus.SUCCESS) {
                    writeNak(out, wrId, status);
                    continue;
                }
                out.writeByte(FabricWire.READ_DATA);
                out.writeLong(wrId);
                servedBytes.addAndGet(length);
                if (fault == InjectedFault.CUT_SHORT) {
                    out.write(scratch, 0, length / 2);
                    out.flush();
                    return;
                }
                if (fault == InjectedFault.FLIP_BYTE) {
                    scratch[length / 2] ^= (byte) 0x5A;
                }
                out.write(scratch, 0, length);
                if (in.available() == 0) {
                    out.flush();
                }
            }
        }
        catch (SocketException | EOFException e) {
            // The requester went away; a real responder QP just stops.
        }
        catch (IOException e) {
            if (!closed.get()) {
                log.debug("Simulated device {}: responder ended: {}", name, e.toString());
            }
        }
        finally {
            responderSockets.remove(socket);
            closeQuietly(socket);
        }
    }

    private static String host(Socket socket)
    {
        return socket.getInetAddress().getHostAddress();
    }

    private static void writeNak(DataOutputStream out, long wrId, CompletionStatus status)
            throws IOException
    {
        out.writeByte(FabricWire.READ_NAK);
        out.writeLong(wrId);
        out.writeByte(status.ordinal());
        out.flush();
    }

    private void checkOpen()
            throws VerbsException
    {
        if (closed.get()) {
            throw new VerbsException("Simulated device " + name + " is closed");
        }
    }

    @Override
    public void close()
    {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        closeQuietly(listener);
        for (SimulatedConnection connection : connections) {
            connection.close();
        }
        for (Socket socket : responderSockets) {
            closeQuietly(socket);
        }
    }

    private static void closeQuietly(Closeable closeable)
    {
        try {
            closeable.close();
        }
        catch (IOException ignored) {
            // Closing is best effort; the peer sees the connection drop either way.
        }
    }

    @Override
    public String toString()
    {
        return "simulated verbs device " + name + " at " + listenAddress();
    }
}
