package dev.ferry.shuffle.transport.auth;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Set;

import dev.ferry.shuffle.transport.auth.AuthChannel;
import dev.ferry.shuffle.transport.wire.FrameReader;
import dev.ferry.shuffle.transport.wire.FrameWriter;
import dev.ferry.shuffle.transport.wire.Message;
import dev.ferry.shuffle.transport.wire.MessageType;

import static java.util.Objects.requireNonNull;

/**
 * An {@link AuthChannel} over the very streams the shuffle protocol continues on, for the
 * authentication handshake before the first shuffle frame. It reads only handshake frames
 * ({@code accepted}: a server's or a client's), each at most {@link MessageType#HANDSHAKE_FRAME_BYTES},
 * so nothing a peer sends before it authenticated can make this side allocate more. Restores the
 * socket's read timeout after each receive. Owns nothing: the connection's owner closes.
 */
public final class StreamAuthChannel
        implements AuthChannel
{
    private final Socket socket;
    private final FrameReader in;
    private final FrameWriter out;
    private final String peer;

    /** {@code accepted}: {@link MessageType#SERVER_HANDSHAKE} on a server, {@link MessageType#CLIENT_HANDSHAKE} on a client. */
    public StreamAuthChannel(Socket socket, InputStream in, OutputStream out, Set<MessageType> accepted)
    {
        this.socket = requireNonNull(socket, "socket is null");
        this.in = new FrameReader(in, MessageType.HANDSHAKE_FRAME_BYTES, accepted);
        this.out = new FrameWriter(out);
        this.peer = String.valueOf(socket.getRemoteSocketAddress());
    }

    @Override
    public String peer()
    {
        return peer;
    }

    @Override
    public void send(Message message)
            throws IOException
    {
        out.write(message);
        out.flush();
    }

    @Override
    public Message receive(Duration timeout)
            throws IOException
    {
        int previous = socket.getSoTimeout();
        socket.setSoTimeout(Math.toIntExact(Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()))));
        try {
            Message message = in.read();
            if (message == null) {
                throw new IOException("Connection from " + peer + " closed");
            }
            return message;
        }
        catch (SocketTimeoutException e) {
            throw new IOException("No message from " + peer + " within " + timeout.toMillis() + " ms", e);
        }
        catch (EOFException e) {
            throw new IOException("Connection from " + peer + " closed", e);
        }
        finally {
            socket.setSoTimeout(previous);
        }
    }
}
