package dev.ferry.shuffle.transport.contract;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A loopback TCP proxy between a reader and a serving peer that spoils the first connection's
 * server-to-reader stream once, at byte {@code triggerAt}: {@link ContractFault#PEER_DIES} resets
 * both sockets (a crashed host), {@link ContractFault#CUT_SHORT} ends the stream there (FIN) and
 * {@link ContractFault#FLIP_BYTE} flips that byte; {@link ContractFault#CAPTURE} spoils nothing and
 * records every byte that crosses it, both ways ({@link #captured}). It lives in the tests only: the
 * stream transports carry no fault hook of their own.
 */
final class FaultyProxy
        implements AutoCloseable
{
    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final ContractFault fault;
    private final long triggerAt;
    private final AtomicBoolean spent = new AtomicBoolean();
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();

    FaultyProxy(int targetPort, ContractFault fault, long triggerAt)
            throws IOException
    {
        this.target = new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort);
        this.fault = fault;
        this.triggerAt = triggerAt;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread accept = new Thread(this::acceptLoop, "faulty-proxy-accept");
        accept.setDaemon(true);
        accept.start();
    }

    int port()
    {
        return listener.getLocalPort();
    }

    private void acceptLoop()
    {
        while (!listener.isClosed()) {
            try {
                Socket reader = listener.accept();
                Socket server = new Socket();
                server.connect(target, 10_000);
                sockets.add(reader);
                sockets.add(server);
                boolean spoil = spent.compareAndSet(false, true);
                pump(reader, server, false, "faulty-proxy-up");
                pump(server, reader, spoil, "faulty-proxy-down");
            }
            catch (IOException e) {
                return;
            }
        }
    }

    private void pump(Socket from, Socket to, boolean spoil, String name)
    {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            long position = 0;
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int read;
                while ((read = in.read(buffer)) >= 0) {
                    if (fault == ContractFault.CAPTURE) {
                        synchronized (captured) {
                            captured.write(buffer, 0, read);
                        }
                    }
                    if (spoil && position <= triggerAt && triggerAt < position + read) {
                        int at = (int) (triggerAt - position);
                        switch (fault) {
                            case FLIP_BYTE -> buffer[at] ^= (byte) 0x5A;
                            case CUT_SHORT -> {
                                out.write(buffer, 0, at);
                                out.flush();
                                to.shutdownOutput();
                                return;
                            }
                            case PEER_DIES -> {
                                out.write(buffer, 0, at);
                                out.flush();
                                reset(to);
                                reset(from);
                                return;
                            }
                            default -> {
                            }
                        }
                    }
                    out.write(buffer, 0, read);
                    out.flush();
                    position += read;
                }
                to.shutdownOutput();
            }
            catch (IOException e) {
                closeQuietly(to);
            }
        }, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Every byte that crossed the proxy so far, both directions interleaved as read (with {@link ContractFault#CAPTURE}). */
    byte[] captured()
    {
        synchronized (captured) {
            return captured.toByteArray();
        }
    }

    private static void reset(Socket socket)
    {
        try {
            socket.setSoLinger(true, 0);
            socket.close();
        }
        catch (IOException ignored) {
            // Already gone.
        }
    }

    private static void closeQuietly(Socket socket)
    {
        try {
            socket.close();
        }
        catch (IOException ignored) {
            // Already gone.
        }
    }

    @Override
    public void close()
    {
        closeQuietly(listener);
        sockets.forEach(FaultyProxy::closeQuietly);
    }

    private static void closeQuietly(ServerSocket socket)
    {
        try {
            socket.close();
        }
        catch (IOException ignored) {
            // Already gone.
        }
    }
}
