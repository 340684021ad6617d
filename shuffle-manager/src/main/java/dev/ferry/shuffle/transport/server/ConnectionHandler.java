package dev.ferry.shuffle.transport.server;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import dev.ferry.shuffle.transport.auth.AuthBootstrap;
import dev.ferry.shuffle.transport.auth.AuthenticationException;
import dev.ferry.shuffle.transport.auth.HandshakeFailures;
import dev.ferry.shuffle.transport.auth.StreamAuthChannel;
import dev.ferry.shuffle.transport.auth.TcpAuth;
import dev.ferry.shuffle.transport.crypto.GcmInputStream;
import dev.ferry.shuffle.transport.crypto.GcmOutputStream;
import dev.ferry.shuffle.transport.crypto.SessionKeys;
import dev.ferry.shuffle.transport.wire.FetchRequest;
import dev.ferry.shuffle.transport.wire.FetchRoute;
import dev.ferry.shuffle.transport.wire.FrameReader;
import dev.ferry.shuffle.transport.wire.FrameWriter;
import dev.ferry.shuffle.transport.wire.Message;
import dev.ferry.shuffle.transport.wire.MessageType;
import dev.ferry.shuffle.transport.wire.RdmaAdmissionRequest;
import dev.ferry.shuffle.transport.wire.Request;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.util.Objects.requireNonNull;

/**
 * Serves one accepted connection on its own thread: the handshake (with authentication on, under
 * one deadline), the encrypted streams (with crypto on), then requests until the peer closes,
 * each answered in one switch over the request's kind; a fetch goes to its route's
 * {@link RouteServer}. What a request's blocks hold is owned by one {@link HeldBlocks}, released at
 * the peer's next request, its {@code FetchDone}, or the connection's close. A block that cannot be
 * served gets a {@code FetchFailure} and the connection stays usable; a malformed frame, a request
 * for a route this server does not serve, or an I/O error closes it.
 */
final class ConnectionHandler
        implements Runnable
{
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionHandler.class);

    private final Socket socket;
    private final long session;
    private final TcpAuth auth;
    private final long maxFrameBytes;
    private final Map<FetchRoute, RouteServer> routes;
    private final Optional<SessionAdmissions> admissions;
    private final ServedBlocks blocks;
    private final HandshakeFailures failures;
    private final ScheduledExecutorService deadlines;
    private final BooleanSupplier serverClosed;
    private final Runnable onClose;

    ConnectionHandler(Socket socket, long session, TcpAuth auth, long maxFrameBytes, Map<FetchRoute, RouteServer> routes, Optional<SessionAdmissions> admissions,
            ServedBlocks blocks, HandshakeFailures failures, ScheduledExecutorService deadlines, BooleanSupplier serverClosed, Runnable onClose)
    {
        this.socket = requireNonNull(socket, "socket is null");
        this.session = session;
        this.auth = requireNonNull(auth, "auth is null");
        this.maxFrameBytes = maxFrameBytes;
        this.routes = Map.copyOf(routes);
        this.admissions = requireNonNull(admissions, "admissions is null");
        this.blocks = requireNonNull(blocks, "blocks is null");
        this.failures = requireNonNull(failures, "failures is null");
        this.deadlines = requireNonNull(deadlines, "deadlines is null");
        this.serverClosed = requireNonNull(serverClosed, "serverClosed is null");
        this.onClose = requireNonNull(onClose, "onClose is null");
    }

    @Override
    public void run()
    {
        HeldBlocks held = new HeldBlocks();
        try (socket) {
            InputStream in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
            OutputStream out = new BufferedOutputStream(socket.getOutputStream(), 64 * 1024);
            if (auth.enabled()) {
                SessionKeys keys;
                // The whole handshake has one deadline (not one per read), so a peer dripping bytes cannot hold a connection slot.
                ScheduledFuture<?> deadline = deadlines.schedule(() -> closeQuietly(socket), auth.timeout().toMillis(), TimeUnit.MILLISECONDS);
                try {
                    keys = AuthBootstrap.authenticateServer(new StreamAuthChannel(socket, in, out, MessageType.SERVER_HANDSHAKE), auth.settings(), auth.timeout());
                }
                catch (AuthenticationException e) {
                    failures.record(host(socket), "Ferry TCP block server refused " + socket.getRemoteSocketAddress() + ": " + e.getMessage());
                    return;
                }
                finally {
                    deadline.cancel(false);
                }
                if (auth.encrypt()) {
                    in = new GcmInputStream(in, keys.receive());
                    out = new GcmOutputStream(out, keys.send());
                }
            }
            FrameReader reader = new FrameReader(in, maxFrameBytes, MessageType.REQUESTS);
            FrameWriter writer = new FrameWriter(out);
            while (!serverClosed.getAsBoolean()) {
                Message message = reader.read();
                if (message == null) {
                    return;
                }
                // By the peer's next message it has taken every block of its last request: let go of what was held for them.
                held.releaseAll();
                if (!(message instanceof Request)) {
                    throw new IOException("Expected a request, got " + message.type());
                }
                Request request = (Request) message;
                switch (request.kind()) {
                    case FETCH_DONE:
                        continue;
                    case RDMA_ADMISSION_REQUEST:
                        // Only a peer that got this far (authenticated, where spark.authenticate is on) gets a token its queue pair can present.
                        writer.write(admissions.orElseThrow(() -> new IOException("This block server has no NIC: RDMA admission refused"))
                                .admit(session, (RdmaAdmissionRequest) request));
                        break;
                    case FETCH_REQUEST:
                        FetchRequest fetch = (FetchRequest) request;
                        RouteServer route = routes.get(fetch.route());
                        if (route == null) {
                            throw new IOException("This block server does not serve the " + fetch.route() + " route (it serves " + routes.keySet() + ")");
                        }
                        route.serve(fetch, blocks, writer, held);
                        break;
                    default:
                        throw new IOException("Expected a request, got " + request.type());
                }
                writer.flush();
            }
        }
        catch (SocketException e) {
            // The peer went away (task killed, executor lost); nothing to answer.
            LOG.debug("Ferry TCP connection closed: {}", e.getMessage());
        }
        catch (IOException | RuntimeException e) {
            if (!serverClosed.getAsBoolean()) {
                failures.record(host(socket), "Ferry TCP connection from " + socket.getRemoteSocketAddress() + " failed: " + e);
            }
        }
        finally {
            held.close();
            admissions.ifPresent(admitted -> admitted.sessionClosed(session));
            onClose.run();
        }
    }

    static String host(Socket socket)
    {
        return socket.getInetAddress() == null ? "unknown" : socket.getInetAddress().getHostAddress();
    }

    static void closeQuietly(Socket socket)
    {
        try {
            socket.close();
        }
        catch (IOException e) {
            LOG.debug("Closing a Ferry TCP connection: {}", e.getMessage());
        }
    }
}
